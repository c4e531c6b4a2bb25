// The consent page's one-time code: six digits, kept only as a digest bound
// to its page, so a code is worth nothing on another interaction.
import { randomInt } from 'node:crypto';
import { digest, sameSecret } from './digest.js';

export function newConsentCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** The digest stored for `code` on interaction `id`. */
export function consentCodeDigest(id: string, code: string): string {
  return digest(`${id}:${code}`);
}

/** Whether a typed code is the one whose digest is stored; anything but six digits is wrong. */
export function consentCodeMatches(id: string, typed: string | undefined, storedDigest: string): boolean {
  const code = typed?.trim() ?? '';
  const presented = /^\d{6}$/.test(code) ? consentCodeDigest(id, code) : '';
  // Padded so a malformed code takes the same comparison as a wrong one.
  return sameSecret(presented.padEnd(64, '0'), storedDigest);
}
