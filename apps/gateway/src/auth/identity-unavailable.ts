import { ServiceCallError } from '@msa/contracts';

/** Identity gave no usable answer (down, too slow, or failing itself): worth a retry, not a 500. */
export function isIdentityUnavailable(err: unknown): boolean {
  if (err instanceof ServiceCallError) return err.status >= 500;
  // fetch reports a refused or reset connection as a TypeError, its deadline as a TimeoutError.
  return err instanceof TypeError || (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'));
}
