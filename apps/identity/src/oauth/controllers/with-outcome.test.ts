import { appError } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { refusalCode, withOutcome } from './with-outcome.js';

function buildCounter() {
  const counted: Array<Record<string, string>> = [];
  return { counted, inc: (labels?: Record<string, string>) => void counted.push(labels ?? {}) };
}

describe('withOutcome', () => {
  it('returns what the work returns and counts nothing', async () => {
    const refusals = buildCounter();

    const result = await withOutcome(refusals, async () => 'token');

    expect(result).toBe('token');
    expect(refusals.counted).toEqual([]);
  });

  it('counts a refusal under its error code and throws it on', async () => {
    const refusals = buildCounter();
    const refused = appError('invalid_grant', 'The authorization code is unknown or expired.');

    await expect(withOutcome(refusals, async () => Promise.reject(refused))).rejects.toBe(refused);

    expect(refusals.counted).toEqual([{ code: 'invalid_grant' }]);
  });
});

describe('refusalCode', () => {
  it('names an error without a code `error`', () => {
    expect(refusalCode(new Error('boom'))).toBe('error');
    expect(refusalCode(undefined)).toBe('error');
  });
});
