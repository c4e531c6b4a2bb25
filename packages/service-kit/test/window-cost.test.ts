// A window limiter charged several units at once (one per message of a
// batch): all or nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWindowLimiter } from '../src/limits.js';
import { createTestRedis, type TestRedis } from './support.js';

let t: TestRedis;

beforeAll(async () => {
  t = await createTestRedis('window-cost');
});

afterAll(async () => {
  await t.cleanup();
});

describe('createWindowLimiter, charged several units', () => {
  it('spends k units for a charge of k', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}spend`, policy: 'per-minute', points: 10, windowSeconds: 60 });

    const result = await limiter.consume('caller', 4);

    expect(result).toMatchObject({ allowed: true, state: { remaining: 6 } });
  });

  it('refuses a charge larger than what is left, and leaves what is left unspent', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}refuse`, policy: 'per-minute', points: 10, windowSeconds: 60 });
    await limiter.consume('caller', 7);

    const refused = await limiter.consume('caller', 4);
    const fits = await limiter.consume('caller', 3);

    expect(refused).toMatchObject({ allowed: false, state: { remaining: 3 } });
    expect(refused.state.resetSeconds).toBeGreaterThan(0);
    expect(fits).toMatchObject({ allowed: true, state: { remaining: 0 } });
  });
});
