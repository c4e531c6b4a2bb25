// Sends the consent page's one-time code to the address a person typed.
//
// A code goes out only when every count allows it, checked in this order so
// that a refusal spends nothing it need not: the sender's own hourly
// allowance first (a sender past it spends no one else's), then the
// mailbox's lock after wrong codes, the new people of the sender's address
// today, and last the mailbox's codes this hour and today. Every count is of
// the mailbox (`mailboxKey`), so `+tag` spellings share one; the e-mail goes
// to the address as typed. The page says the same whether or not the address
// is known anywhere.
import { LIMITS, type ConsentLanguage } from '@msa/contracts';
import { mailboxKey } from '@msa/service-kit';
import { secondsUntilUtcMidnight } from '@msa/service-kit/limits';
import { z } from 'zod';
import { approvalTarget } from '../rules/approval-target.js';
import { consentCodeDigest, newConsentCode } from '../rules/consent-code.js';
import { digest } from '../rules/digest.js';
import type { Interaction } from '../store/oauth-records.js';
import type { ConsentDeps, ConsentRefusal, TooManyResult } from './consent-deps.js';

const ConsentEmail = z.email().max(254);

export interface SendConsentCodeInput {
  id: string;
  interaction: Interaction;
  /** As typed in the form. */
  email: string | undefined;
  lang: ConsentLanguage;
  /** The key the client address counts under. */
  sender: string;
  requestId: string;
}

export type SendConsentCodeResult = { kind: 'sent' } | { kind: 'invalid_email' } | TooManyResult;

/** The first count that refuses, or null when every one allows a code. */
async function refusal(deps: ConsentDeps, sender: string, mailbox: string): Promise<TooManyResult | null> {
  const { counts } = deps;
  const tooMany = (reason: ConsentRefusal, retryAfterSeconds: number): TooManyResult => ({ kind: 'too_many', reason, retryAfterSeconds });
  const byIp = await counts.mailsPerIp.consume(sender);
  if (!byIp.allowed) return tooMany('codes', byIp.state.resetSeconds);
  if ((await deps.store.wrongCodes(mailbox)) >= counts.wrongCodesPerAddressPerDay) return tooMany('locked', secondsUntilUtcMidnight());
  // A person already counted today from this address goes on; the unit is the mailbox.
  const person = await counts.peoplePerIp.reserve(sender, new Date(), mailbox.slice(0, 32));
  if (!person.allowed) return tooMany('people', person.state.resetSeconds);
  const byAddress = await counts.mailsPerAddress.consume(mailbox);
  if (!byAddress.allowed) return tooMany('codes', byAddress.state.resetSeconds);
  const today = await counts.mailsPerAddressPerDay.reserve(mailbox);
  if (!today.allowed) return tooMany('codes_today', today.state.resetSeconds);
  return null;
}

export async function sendConsentCode(deps: ConsentDeps, input: SendConsentCodeInput): Promise<SendConsentCodeResult> {
  // Only the surrounding space goes, not normalizeEmail's case: the code goes to, and the
  // page shows, the address as typed; the counts below compare through mailboxKey.
  const parsed = ConsentEmail.safeParse(input.email?.trim());
  if (!parsed.success) return { kind: 'invalid_email' };
  const address = parsed.data;
  const refused = await refusal(deps, input.sender, digest(mailboxKey(address)));
  if (refused) return refused;

  const code = newConsentCode();
  await deps.store.updateInteraction(input.id, {
    ...input.interaction,
    step: 'code',
    email: address,
    code_digest: consentCodeDigest(input.id, code),
    code_expires_at: Date.now() + LIMITS.consentCodeLifetimeSeconds * 1000,
  });
  const r = input.interaction.request;
  await deps.mailer.send({
    to: address,
    code,
    lang: input.lang,
    clientName: r.client_name,
    clientHost: r.client_host,
    clientNameSelfDeclared: !r.client_verified,
    approvalTarget: approvalTarget(r.redirect_uri),
    trace: { request_id: input.requestId },
  });
  return { kind: 'sent' };
}
