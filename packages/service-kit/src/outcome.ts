// @module `withOutcome(counter, labels, work, success?)`: counts what became of a request once, where it is answered: `created` (or what `success` names), `invalid`, `rate_limited` or `unavailable` from the error's code; `{ refusalsOnly: 'code' }` counts failures alone, under the error's own code (`errorCodeOf`)
// Counting what became of a request once, where it is answered: the use case
// throws or returns, and the error's code says which outcome it was. A use
// case that counted at each of its exits would miss the exit added next.
import type { ErrorCode } from '@msa/contracts';
import { AppError } from './errors.js';

/** What withOutcome needs of a counter: a prom-client Counter from `Metrics.counter` fits. */
export interface OutcomeCounter {
  inc(labels: Record<string, string>): void;
}

/** The outcome labels the error codes stand for; any other failure is `unavailable`. */
const OUTCOME_OF_CODE: Partial<Record<ErrorCode, string>> = {
  validation_failed: 'invalid',
  rate_limited: 'rate_limited',
};

/** The outcome label of a failure: `invalid`, `rate_limited`, else `unavailable` (a store, a queue or a service did not answer). */
export function outcomeOfError(err: unknown): string {
  return (err instanceof AppError && OUTCOME_OF_CODE[err.code]) || 'unavailable';
}

/** The error's own code (an AppError's, an OAuth error's), else `error`: the label of a counter of refusals by code. */
export function errorCodeOf(err: unknown): string {
  return (err as { code?: string } | null)?.code ?? 'error';
}

export interface OutcomeOptions<T> {
  /** The outcome label of a result; `created` by default. */
  success?: (result: T) => string;
  /**
   * Counts failures only, under this label with the error's own code
   * (`errorCodeOf`), for a counter of refusals: a success counts nothing.
   */
  refusalsOnly?: string;
}

/**
 * Runs `work` and counts its outcome once under `labels`: `created`, or what
 * `success` names for the result (`reused`), or the failure's outcome.
 */
export async function withOutcome<T>(
  counter: OutcomeCounter,
  labels: Record<string, string>,
  work: () => Promise<T>,
  options: ((result: T) => string) | OutcomeOptions<T> = {},
): Promise<T> {
  const { success = () => 'created', refusalsOnly } = typeof options === 'function' ? { success: options } : options;
  let result: T;
  try {
    result = await work();
  } catch (err) {
    counter.inc(refusalsOnly ? { ...labels, [refusalsOnly]: errorCodeOf(err) } : { ...labels, outcome: outcomeOfError(err) });
    throw err;
  }
  if (!refusalsOnly) counter.inc({ ...labels, outcome: success(result) });
  return result;
}
