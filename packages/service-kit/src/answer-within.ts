// @module `answerWithin(work, ms, what)`: the work's own outcome, or an error naming `what` after `ms`, for calls that take no AbortSignal (ioredis, BullMQ); the work is not cancelled
import { once } from 'node:events';

/**
 * `work`'s own outcome, or an error naming `what` once `ms` have passed; for
 * calls that take no AbortSignal of their own (ioredis and BullMQ commands).
 * An API that takes a signal gets `AbortSignal.timeout(ms)` directly instead.
 * The deadline's timer does not keep the process alive, and the work is not
 * cancelled, only no longer waited for.
 */
export async function answerWithin<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  const settled = new AbortController();
  const deadline = once(AbortSignal.timeout(ms), 'abort', { signal: settled.signal }).then(() => {
    throw new Error(`${what} did not answer within ${ms} ms`);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    // Drops the deadline's listener; the rejection this gives is the race's, already handled.
    settled.abort();
  }
}
