/*
 * The processor of the `mail` queue: e-mails that are not shop requests,
 * sent through the same mailer as the intake steps. Today one kind, the
 * consent page's one-time code, whose address and code travel sealed
 * (contracts `ConsentCodeMailJob`, service-kit `createSealedText`).
 *
 * The address and the code never reach a log line, a job's failed reason or
 * a thrown error: an invalid job fails naming only fields, and an error of
 * the SMTP server (which often quotes the recipient) is rewritten without
 * them before BullMQ stores and the worker logs it. A retry sends the same
 * code again with the same Message-ID; nothing is recorded per step, since
 * a second copy of a code costs nothing.
 */
import { ConsentCodeMailJob, ConsentCodeSecret } from '@msa/contracts';
import type { Logger, SealedText } from '@msa/service-kit';
import { UnrecoverableError, type Job } from 'bullmq';
import { traceFields } from '../intake/trace-fields.js';
import { buildConsentCodeMail } from '../mail/consent-code-mail.js';
import { messageIdFor, type MailSettings } from '../mail/mail-settings.js';
import type { Mailer } from '../mail/mailer.js';
import { withoutAddresses } from '../without-addresses.js';

export interface MailJobDeps {
  mailer: Mailer;
  mail: MailSettings;
  /** Opens what identity sealed with the same INTERNAL_AUTH_SECRET and MAIL_JOB_SEAL_PURPOSE. */
  sealed: SealedText;
  logger: Logger;
  now?: () => number;
}

export interface MailJobOutcome {
  kind: 'consent_code';
}

export async function runMailJob(deps: MailJobDeps, job: Job): Promise<MailJobOutcome> {
  const parsed = ConsentCodeMailJob.safeParse(job.data);
  if (!parsed.success) {
    // zod's messages name the expected shape, never the value received.
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).slice(0, 10);
    throw new UnrecoverableError(`invalid mail job payload: ${problems.join('; ')}`);
  }
  const data = parsed.data;
  const secret = openSecret(deps.sealed, data.sealed);

  // Whole minutes the job waited come off the code's lifetime; a code that
  // expired on the queue (a worker outage) is not worth an e-mail.
  const waitedMinutes = Math.floor(Math.max(0, (deps.now ?? Date.now)() - job.timestamp) / 60_000);
  const validMinutes = data.expires_in_minutes - waitedMinutes;
  if (validMinutes < 1) {
    throw new UnrecoverableError(`the consent code expired on the queue (valid ${data.expires_in_minutes} min, waited ${waitedMinutes} min); not sent`);
  }

  const mailId = mailIdOf(job);
  const message = buildConsentCodeMail(data, secret, deps.mail, { validMinutes, messageId: messageIdFor(mailId, 'consent-code', deps.mail) });
  try {
    await deps.mailer.send('consent-code', mailId, message);
  } catch (err) {
    throw withoutSecret(err, secret);
  }
  if (deps.logger.isLevelEnabled('info')) {
    deps.logger.info({ jobId: job.id, kind: data.kind, lang: data.lang, attempt: job.attemptsMade + 1, ...traceFields(data) }, 'consent code e-mail sent');
  }
  return { kind: data.kind };
}

function openSecret(sealed: SealedText, text: string): ConsentCodeSecret {
  const opened = sealed.open(text);
  if (opened === null) {
    throw new UnrecoverableError('the sealed address and code do not open with this INTERNAL_AUTH_SECRET (another secret, or not a seal)');
  }
  let value: unknown;
  try {
    value = JSON.parse(opened);
  } catch {
    throw new UnrecoverableError('the sealed address and code are not JSON');
  }
  const secret = ConsentCodeSecret.safeParse(value);
  if (!secret.success) {
    // The paths only: a message could describe the value.
    const fields = [...new Set(secret.error.issues.map((i) => i.path.join('.') || '(root)'))];
    throw new UnrecoverableError(`the sealed address and code are invalid (${fields.join(', ')})`);
  }
  return secret.data;
}

/** Names the outbox file and the Message-ID: the same for every attempt of one job, and a job id of any shape stays a safe token. */
export function mailIdOf(job: Pick<Job, 'id' | 'timestamp'>): string {
  return `mail-${String(job.id ?? 'none').replace(/[^A-Za-z0-9_-]/g, '_')}-${job.timestamp}`;
}

/**
 * The send error as BullMQ may store and the worker may log it: every
 * address and the code replaced (`without-addresses.ts`), the SMTP code and
 * reply code kept, nothing else.
 */
export function withoutSecret(err: unknown, secret: ConsentCodeSecret): Error {
  return withoutAddresses(err, (text) => text.split(secret.to).join('[address]').split(secret.code).join('[code]'));
}
