import { describe, expect, it } from 'vitest';
import { serviceUnavailableError } from './error-handler.js';
import { appError } from './errors.js';
import { errorCodeOf, withOutcome } from './outcome.js';

function createCounter() {
  const counted: Record<string, string>[] = [];
  return { counted, counter: { inc: (labels: Record<string, string>) => void counted.push(labels) } };
}

describe('withOutcome', () => {
  it('counts a finished request as created under its labels and returns its result', async () => {
    const { counted, counter } = createCounter();

    const result = await withOutcome(counter, { mode: 'live' }, async () => 42);

    expect(result).toBe(42);
    expect(counted).toEqual([{ mode: 'live', outcome: 'created' }]);
  });

  it('counts what the result says it was', async () => {
    const { counted, counter } = createCounter();

    await withOutcome(counter, {}, async () => ({ reused: true }), (r) => (r.reused ? 'reused' : 'created'));

    expect(counted).toEqual([{ outcome: 'reused' }]);
  });

  it('takes what the result says from the options too', async () => {
    const { counted, counter } = createCounter();

    await withOutcome(counter, {}, async () => ({ reused: true }), { success: (r) => (r.reused ? 'reused' : 'created') });

    expect(counted).toEqual([{ outcome: 'reused' }]);
  });

  it.each([
    ['invalid', appError('validation_failed', 'bad')],
    ['rate_limited', appError('rate_limited', 'too many')],
    ['unavailable', serviceUnavailableError('later')],
    ['unavailable', appError('intake_unavailable', 'not stored')],
    ['unavailable', new Error('socket closed')],
  ])('counts %s for a request that failed with %s, and rethrows it', async (outcome, err) => {
    const { counted, counter } = createCounter();

    const run = withOutcome(counter, { mode: 'sandbox' }, async () => {
      throw err;
    });

    await expect(run).rejects.toBe(err);
    expect(counted).toEqual([{ mode: 'sandbox', outcome }]);
  });
});

describe('withOutcome counting refusals only', () => {
  it('returns what the work returns and counts nothing', async () => {
    const { counted, counter } = createCounter();

    const result = await withOutcome(counter, {}, async () => 'token', { refusalsOnly: 'code' });

    expect(result).toBe('token');
    expect(counted).toEqual([]);
  });

  it('counts a refusal under its error code and throws it on', async () => {
    const { counted, counter } = createCounter();
    const refused = appError('invalid_grant', 'The authorization code is unknown or expired.');

    await expect(withOutcome(counter, {}, async () => Promise.reject(refused), { refusalsOnly: 'code' })).rejects.toBe(refused);

    expect(counted).toEqual([{ code: 'invalid_grant' }]);
  });

  it('keeps the other labels beside the code', async () => {
    const { counted, counter } = createCounter();

    await expect(withOutcome(counter, { mode: 'live' }, async () => Promise.reject(new Error('boom')), { refusalsOnly: 'code' })).rejects.toThrow('boom');

    expect(counted).toEqual([{ mode: 'live', code: 'error' }]);
  });
});

describe('errorCodeOf', () => {
  it('names an error without a code `error`', () => {
    expect(errorCodeOf(new Error('boom'))).toBe('error');
    expect(errorCodeOf(undefined)).toBe('error');
    expect(errorCodeOf(null)).toBe('error');
  });
});
