/*
 * The job processor: delivers one live shop request in four steps, each
 * recorded in Redis when it finishes so a retry (or another worker taking
 * over a stalled job) resumes after the last finished step.
 *
 * The e-mails also record that they began (`<step>_pending`), in the write
 * before them: the record of the step before, or for the operator e-mail of
 * a request without logos (no logo step) the first read of the record. A
 * retry that finds an e-mail begun but not finished knows the previous
 * attempt may have sent it; an e-mail cannot be looked up, so it is sent
 * again with the same Message-ID and a warning in the log (the
 * at-least-once window, README). The list entry is written together with
 * its marker, which is also its step's record, so it is never written twice.
 *
 * Before the operator e-mail the confirmation limit decides whether the
 * confirmation may go out (the same answer on every attempt) and counts the
 * day's live requests to the contact's address and domain (once per
 * request); the operator e-mail states the counts, and says when the
 * confirmation is held back.
 *
 * Redis calls of a delivery without logos: the read (which marks the
 * operator e-mail begun), the confirmation limit, the operator e-mail's
 * record (which marks the confirmation begun) and the list entry.
 */
import { IntakeJob, shopTypeOf, type Quote } from '@msa/contracts';
import type { Logger } from '@msa/service-kit';
import { UnrecoverableError, type Job } from 'bullmq';
import type { Counter, Histogram } from 'prom-client';
import type { LogoFetchOptions } from '../logos/fetch-logo.js';
import type { ConfirmationDecision, ConfirmationLimit, RequestsToday } from '../mail/confirmation-limit.js';
import { buildContactMail } from '../mail/contact-mail.js';
import type { MailSettings } from '../mail/mail-settings.js';
import { failedBeforeData, type Mailer } from '../mail/mailer.js';
import { buildOperatorMail } from '../mail/operator-mail.js';
import type { IntakeStore, Step, StoredLogo } from '../store/intake-store.js';
import { collectLogos, logoUrlsOf } from './collect-logos.js';
import { traceFields } from './trace-fields.js';

export interface IntakeDeps {
  store: IntakeStore;
  mailer: Mailer;
  mail: MailSettings;
  logos: LogoFetchOptions & { totalMaxBytes: number; jobBudgetMs: number; parallel: number };
  /** Bounds the confirmations to one address per day. */
  confirmations: ConfirmationLimit;
  logger: Logger;
  stepDuration?: Histogram;
  /** Confirmations held back by the daily limit. */
  confirmationsHeld?: Counter;
}

export interface IntakeOutcome {
  list_entry: string;
}

export async function runIntake(deps: IntakeDeps, job: Job): Promise<IntakeOutcome> {
  const parsed = IntakeJob.safeParse(job.data);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).slice(0, 10);
    throw new UnrecoverableError(`invalid intake payload: ${problems.join('; ')}`);
  }
  const data = parsed.data;
  const id = data.request_id;
  const log = jobLogger(deps.logger, job, data);
  const timed = <T>(step: Step, work: () => Promise<T>) => timeStep(deps.stepDuration, step, work);
  const { store } = deps;

  const logoUrls = logoUrlsOf(data.body);
  // Without logos there is no logo step to mark the operator e-mail begun; the read does it.
  const state = await store.begin(id, { markOperatorBegun: logoUrls.length === 0 });
  const delivered = state.list ?? (state.contact_pending || state.contact ? await store.findListEntry(id) : null);
  if (delivered) {
    // An earlier attempt may have failed waiting for the replicas to hold it.
    await store.confirmListEntry(id);
    log.info('already delivered');
    return { list_entry: delivered };
  }

  let logos: StoredLogo[] | null = null;
  let logoNotes = parseNotes(state.logos);
  // Whether this attempt marked the operator e-mail begun (by the read, or by recording the logos).
  let operatorMarked = logoUrls.length === 0 && !state.operator && !state.operator_pending;
  if (!state.operator) {
    if (state.logos) logos = await store.readLogos(id);
    if (!logos && logoUrls.length === 0) logos = [];
    if (!logos) {
      const fetched = await timed('logos', () => collectLogos(logoUrls, { ...deps.logos, log }));
      logoNotes = fetched.filter((l) => l.note).map((l) => `${l.url}: ${l.note}`);
      // The step's value is the notes: the list entry needs them after the logos are gone.
      await store.record(id, 'logos', { value: JSON.stringify(logoNotes), next: 'operator', logos: { set: fetched } });
      logos = fetched;
      operatorMarked = true;
    }
  }

  // `marked`: this attempt already marked the step begun.
  const sendOnce = async (step: 'operator' | 'contact', marked: boolean, send: () => Promise<void>) => {
    const earlier = state[`${step}_pending`];
    if (earlier) log.warn({ step }, 'an earlier attempt may have sent this e-mail; sending it again with the same Message-ID');
    else if (!marked) await store.markPending(id, step);
    try {
      await timed(step, send);
    } catch (err) {
      if (!earlier && failedBeforeData(err)) await store.clearPending(id, step).catch(() => undefined);
      throw err;
    }
  };

  // Records of earlier versions may show the confirmation sent; then nothing is left to decide.
  let confirmation: ConfirmationDecision = 'send';
  let requestsToday: RequestsToday | undefined;
  if (!state.contact) {
    const decided = await deps.confirmations.decide(id, data.body.organization.email);
    confirmation = decided.decision;
    requestsToday = decided.requestsToday;
    if (confirmation === 'hold' && decided.first) deps.confirmationsHeld?.inc();
  }

  if (!state.operator) {
    const message = buildOperatorMail(data, logos ?? [], deps.mail, { confirmation, requestsToday });
    await sendOnce('operator', operatorMarked, () => deps.mailer.send('operator', id, message));
    // Stored logos go with this record; a request without them has none to delete.
    await store.record(id, 'operator', { next: 'contact', logos: state.logos || logoUrls.length ? 'delete' : undefined });
    log.info({ to: deps.mail.operatorEmail }, 'operator e-mail sent');
  }

  // Records of earlier versions mark the confirmation sent; now the list entry's marker does.
  if (confirmation === 'hold') {
    log.info('confirmation e-mail held back: the daily limit for its address is reached');
  } else if (!state.contact) {
    const message = buildContactMail(data, deps.mail);
    await sendOnce('contact', !state.operator, () => deps.mailer.send('confirmation', id, message));
    log.info('confirmation e-mail sent');
  }

  // The last step records itself: the entry and its marker are written in one script.
  const entry = await timed('list', () => store.appendListEntry(id, listFields(data, logoNotes, { confirmation })));
  // The job completes only once the replicas hold the entry (REDIS_WAIT_REPLICAS).
  await store.confirmListEntry(id);
  log.info({ listEntry: entry }, 'shop request delivered');
  return { list_entry: entry };
}

/** The essentials of the internal request list; the e-mail carries the rest. */
export function listFields(job: IntakeJob, logoNotes: string[], marks: { confirmation?: ConfirmationDecision } = {}): Record<string, string> {
  const org = job.body.organization;
  return {
    request_id: job.request_id,
    created_at: job.result.created_at,
    organization: org.name,
    organization_type: org.type,
    shop_type: shopTypeOf(org.type),
    shop_name: job.body.shop_name,
    contact_name: org.contact_name,
    contact_email: org.email,
    products: job.result.products.map((p) => p.handle).join(', '),
    design_service: String(job.body.design_service),
    logo_notes: logoNotes.join(' | '),
    owner_id: job.owner_id,
    // `confirmed`: made through the consent page by a person who confirmed an address; else a key alone.
    submitter_status: job.submitter ? 'confirmed' : 'unconfirmed',
    confirmation_mail: marks.confirmation === 'hold' ? 'held_back' : 'sent',
    // Only when the submitter confirmed their address: other entries stay as they were.
    ...(job.submitter
      ? {
          submitter_confirmed_email: job.submitter.email,
          submitter_client_id: job.submitter.client_id,
          submitter_client_name: job.submitter.client_name,
        }
      : {}),
    // Only when the request named a quote: its lines and totals as the customer saw them.
    ...(job.quote ? quoteFields(job.quote) : {}),
  };
}

const amount = (euros: number) => euros.toFixed(2);

function quoteFields(quote: Quote): Record<string, string> {
  return {
    quote_id: quote.quote_id,
    quote_basis: quote.shop_type === 'b2b' ? 'net' : 'gross',
    quote_lines: quote.lines
      .map(
        (l) =>
          `${l.quantity} x ${l.handle} (${l.decoration}${l.tier_from === null ? '' : `, tier ${l.tier_from}`}): ` +
          `${amount(l.unit_net)}/${amount(l.unit_gross)} each, ${amount(l.total_net)} net / ${amount(l.total_gross)} gross`,
      )
      .join(' | '),
    quote_total_net: amount(quote.total_net),
    quote_vat: amount(quote.vat),
    quote_total_gross: amount(quote.total_gross),
    quote_expires_at: quote.expires_at,
  };
}

function parseNotes(value: string | undefined): string[] {
  if (!value) return [];
  try {
    const notes: unknown = JSON.parse(value);
    return Array.isArray(notes) ? notes.map(String) : [];
  } catch {
    return [];
  }
}

/** The lines a job writes; at the production level (`warn`) most of them are not written at all. */
export type JobLog = Pick<Logger, 'info' | 'warn'>;

/**
 * The job's lines carry its ids. The child logger that adds them is made
 * only when a line is written: most deliveries write none at `warn`.
 */
function jobLogger(logger: Logger, job: Job, data: IntakeJob): JobLog {
  let child: Logger | undefined;
  const line = (level: 'info' | 'warn') =>
    ((...args: Parameters<Logger['info']>) => {
      if (!logger.isLevelEnabled(level)) return;
      child ??= logger.child({ ...traceFields(data), shopRequestId: data.request_id, jobId: job.id, attempt: job.attemptsMade + 1 });
      child[level](...args);
    }) as Logger['info'];
  return { info: line('info'), warn: line('warn') };
}

async function timeStep<T>(histogram: Histogram | undefined, step: Step, work: () => Promise<T>): Promise<T> {
  const end = histogram?.startTimer({ step });
  try {
    return await work();
  } finally {
    end?.();
  }
}
