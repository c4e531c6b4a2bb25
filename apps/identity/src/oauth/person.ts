// The principal of the authorization code grant: the address a person
// confirmed, in the mode they chose. Every host the person connects gets the
// same id, so they share its quotas and see its requests. The id is a digest,
// so logs that name principals carry no address.
import { createHash } from 'node:crypto';
import { SERVICE_PREFIX, type Mode } from '@msa/contracts';

export const PERSON_ID_PREFIX = `${SERVICE_PREFIX}_user_`;

/** Addresses compare case-insensitively here: `Erika@Example.org` is one person with `erika@example.org`. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function personId(email: string, mode: Mode): string {
  const digest = createHash('sha256').update(`msa person\n${mode}\n${normalizeEmail(email)}`, 'utf8').digest('hex');
  return `${PERSON_ID_PREFIX}${mode === 'live' ? 'live' : 'test'}_${digest.slice(0, 24)}`;
}
