// Approves an authorization request: with the e-mailed code in the mode the
// person chose, or in the sandbox without an e-mail address. Either ends the
// interaction once and stores an authorization code for the client.
import { randomBytes } from 'node:crypto';
import { LIMITS } from '@msa/contracts';
import { mailboxKey } from '@msa/service-kit';
import { secondsUntilUtcMidnight } from '@msa/service-kit/limits';
import { randomBase62 } from '../../domain/credentials.js';
import { consentCodeMatches } from '../rules/consent-code.js';
import { digest } from '../rules/digest.js';
import { anonymousSandboxId } from '../rules/person.js';
import type { Approval, Interaction } from '../store/oauth-records.js';
import type { ConsentDeps, TooManyResult } from './consent-deps.js';

export type ApproveConsentResult =
  | { kind: 'retry'; error: 'choose_mode' | 'code_expired' | 'wrong_code'; attemptsLeft?: number }
  | TooManyResult
  /** The interaction ended meanwhile (approved or denied in another request). */
  | { kind: 'expired' }
  | { kind: 'approved'; code: string; approval: Approval };

export interface ApproveConsentInput {
  id: string;
  interaction: Interaction;
  code: string | undefined;
  mode: string | undefined;
}

const locked = (): TooManyResult => ({ kind: 'too_many', reason: 'locked', retryAfterSeconds: secondsUntilUtcMidnight() });

/** Stores the authorization code of an approval once the interaction is claimed; `expired` when someone else claimed it. */
async function grantCode(deps: ConsentDeps, id: string, interaction: Interaction, approval: Approval): Promise<ApproveConsentResult> {
  // One approval per page, even when the form is sent twice at once.
  if (!(await deps.store.claimInteraction(id))) return { kind: 'expired' };
  const code = randomBytes(32).toString('base64url');
  await deps.store.saveCode(code, { request: interaction.request, approval, grant_id: `g${randomBase62(24)}` });
  return { kind: 'approved', code, approval };
}

export async function approveConsent(deps: ConsentDeps, { id, interaction, code, mode }: ApproveConsentInput): Promise<ApproveConsentResult> {
  const chosen = interaction.request.sandbox ? 'sandbox' : mode;
  if (chosen !== 'live' && chosen !== 'sandbox') return { kind: 'retry', error: 'choose_mode' };
  const { code_digest: codeDigest, code_expires_at: expiresAt, email } = interaction;
  if (!codeDigest || !expiresAt || !email || Date.now() > expiresAt) return { kind: 'retry', error: 'code_expired' };
  // Every try counts, atomically, before the code is compared: parallel guesses cannot share one count.
  const tries = await deps.store.countCodeTry(codeDigest, expiresAt);
  if (tries > LIMITS.consentCodeAttempts) return { kind: 'retry', error: 'code_expired' };
  // The mailbox's count of the day too, across every page and code; a right code is given back below.
  const mailbox = digest(mailboxKey(email));
  const wrongToday = await deps.store.countMailboxTry(mailbox);
  const limit = deps.counts.wrongCodesPerAddressPerDay;
  if (wrongToday > limit) return locked();
  if (!consentCodeMatches(id, code, codeDigest)) {
    if (wrongToday >= limit) return locked();
    const left = LIMITS.consentCodeAttempts - tries;
    return left > 0 ? { kind: 'retry', error: 'wrong_code', attemptsLeft: left } : { kind: 'retry', error: 'code_expired' };
  }
  await deps.store.forgiveTry(mailbox);
  return grantCode(deps, id, interaction, { email, mode: chosen });
}

/**
 * The sandbox without an e-mail code, the way in for directory reviewers:
 * a principal of its own, tied to no address, with the sandbox's limits
 * (its requests count on the sandbox quota per principal and per client
 * address, as an anonymous sandbox call does). Each is a new principal, so
 * it counts as a new person of the caller's address today, as a mailbox
 * does: an address gets no more of them than people.
 */
export async function approveSandboxWithoutEmail(deps: ConsentDeps, { id, interaction, sender }: { id: string; interaction: Interaction; sender: string }): Promise<ApproveConsentResult> {
  const principal = anonymousSandboxId();
  const person = await deps.counts.peoplePerIp.reserve(sender, new Date(), `anon:${principal.slice(-24)}`);
  if (!person.allowed) return { kind: 'too_many', reason: 'people', retryAfterSeconds: person.state.resetSeconds };
  const granted = await grantCode(deps, id, interaction, { mode: 'sandbox', principal });
  if (granted.kind === 'expired') await person.refund();
  return granted;
}
