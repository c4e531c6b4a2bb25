// Codes, tokens, cookies and one-time codes are kept and compared only as
// SHA-256 digests; comparisons of secrets take the same time whatever matches.
import { createHash, timingSafeEqual } from 'node:crypto';

export function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Whether two secrets are equal, in time independent of where they differ. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
