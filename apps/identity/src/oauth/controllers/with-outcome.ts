// Refusals are counted once, where a request leaves the token endpoint:
// whatever a grant throws is counted under its error code, then rethrown.
import type { Counter } from '../oauth-deps.js';

/** The label an error counts under: its OAuth or AppError code, else `error`. */
export function refusalCode(err: unknown): string {
  return (err as { code?: string } | null)?.code ?? 'error';
}

/** Runs `work`; a refusal increments `refusals` with `{ code }` and is thrown on. */
export async function withOutcome<T>(refusals: Counter, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    refusals.inc({ code: refusalCode(err) });
    throw err;
  }
}
