// The principal of the authorization code grant: the mailbox a person
// confirmed, in the mode they chose. Every host the person connects gets the
// same id, so they share its quotas and see its requests. The id is a digest,
// so logs that name principals carry no address.
import { createHash } from 'node:crypto';
import { SERVICE_PREFIX, type Mode } from '@msa/contracts';
import { mailboxKey } from '@msa/service-kit';
import { randomBase62 } from '../../domain/credentials.js';

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

/**
 * The principal of a sandbox approval without an e-mail address (the way in
 * for directory reviewers): one of its own per approval, tied to no person,
 * so it shares nothing with anyone's quotas or requests and holds no address.
 */
export function anonymousSandboxId(): string {
  return `${PERSON_ID_PREFIX}test_anon_${randomBase62(24)}`;
}

/** What a grant's tokens name: the principal id, its display name and, for a person, the confirmed address. */
export function approvalPrincipal(approval: { email?: string | undefined; principal?: string | undefined; mode: Mode }, sandbox: boolean): { id: string; name: string; email?: string } {
  if (approval.email === undefined) {
    if (!approval.principal) throw new Error('An approval without an e-mail address must name its principal.');
    return { id: approval.principal, name: 'Sandbox without e-mail' };
  }
  return { id: personId(approval.email, sandbox ? 'sandbox' : approval.mode), name: approval.email, email: approval.email };
}
