// The principal of the authorization code grant: the mailbox a person
// confirmed, in the mode they chose. Every host the person connects gets the
// same id, so they share its quotas and see its requests. The id is a digest,
// so logs that name principals carry no address.
import { createHash } from 'node:crypto';
import { SERVICE_PREFIX, type Mode } from '@msa/contracts';
import { mailboxKey } from '@msa/service-kit';

export const PERSON_ID_PREFIX = `${SERVICE_PREFIX}_user_`;

/**
 * One person per mailbox, not per spelling: `Erika+shop@example.org` and
 * `erika@example.org` share one id and its quotas, as do Gmail's dotted
 * spellings. Mail still goes to the address as it was typed.
 */
export function personId(email: string, mode: Mode): string {
  const digest = createHash('sha256').update(`msa person\n${mode}\n${mailboxKey(email)}`, 'utf8').digest('hex');
  return `${PERSON_ID_PREFIX}${mode === 'live' ? 'live' : 'test'}_${digest.slice(0, 24)}`;
}
