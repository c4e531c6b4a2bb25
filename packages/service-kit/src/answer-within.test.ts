import { describe, expect, it } from 'vitest';
import { answerWithin } from './answer-within.js';

describe('answerWithin', () => {
  it('answers what the work answers when it settles in time', async () => {
    await expect(answerWithin(Promise.resolve('PONG'), 1_000, 'Redis')).resolves.toBe('PONG');
    await expect(answerWithin(Promise.reject(new Error('refused')), 1_000, 'Redis')).rejects.toThrow('refused');
  });

  it('rejects naming what did not answer once the time is up', async () => {
    const never = new Promise<never>(() => undefined);

    await expect(answerWithin(never, 20, 'CLUSTER INFO')).rejects.toThrow('CLUSTER INFO did not answer within 20 ms');
  });
});
