/*
 * The job processor: delivers one live shop request in four steps (logos,
 * operator e-mail, confirmation, list entry), taking the writes of the
 * delivery table (delivery-steps.ts) in its order, each checked against the
 * table before it is made, so a retry (or another worker taking over a
 * stalled job) resumes after the last finished step.
 *
 * Before the operator e-mail the confirmation limit decides whether the
 * confirmation may go out (the same answer on every attempt) and counts the
 * day's live requests to the contact's address and domain (once per
 * request); the operator e-mail states the counts, and says when the
 * confirmation is held back.
 *
 * Redis calls of a delivery without logos: the operator e-mail's begun
 * mark (which reads the record only when an earlier attempt left a mark),
 * the confirmation limit, the operator e-mail's record (which marks the
 * confirmation begun) and the list entry.
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
import type { IntakeStore, Step, StepState, StoredLogo } from '../store/intake-store.js';
import { collectLogos, logoUrlsOf } from './collect-logos.js';
import { Delivery, deliveryStateOf, mayTake, take, type DeliveryState } from './delivery-steps.js';
import { jobLogger, type JobLog } from './job-log.js';

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

/** One attempt at one request: what it read, and where the delivery stands now. */
interface Attempt {
  deps: IntakeDeps;
  job: Job;
  data: IntakeJob;
  id: string;
  log: JobLog;
  /** The step record as this attempt found it. */
  found: StepState;
  at: DeliveryState;
  timed: <T>(step: Step, work: () => Promise<T>) => Promise<T>;
}

export async function runIntake(deps: IntakeDeps, job: Job): Promise<IntakeOutcome> {
  const data = parseJob(job);
  const id = data.request_id;
  const log = jobLogger(deps.logger, job, data);
  const logoUrls = logoUrlsOf(data.body);
  // Without logos there is no logo step to mark the operator e-mail begun; begin does it.
  const found = await deps.store.begin(id, { markOperatorBegun: logoUrls.length === 0 });
  const delivered = found.list ?? (found.contact_pending || found.contact ? await deps.store.findListEntry(id) : null);
  if (delivered) {
    // An earlier attempt may have failed waiting for the replicas to hold it.
    await deps.store.confirmListEntry(id);
    log.info('already delivered');
    return { list_entry: delivered };
  }
  const timed = <T>(step: Step, work: () => Promise<T>) => timeStep(deps.stepDuration, step, work);
  const attempt: Attempt = { deps, job, data, id, log, found, at: deliveryStateOf(found), timed };
  // begin marked the operator e-mail begun unless an earlier attempt had (or had sent it).
  const markedByRead = logoUrls.length === 0 && attempt.at === Delivery.received;
  if (markedByRead) attempt.at = take('beginOperator', attempt.at, id);

  let logos: StoredLogo[] | null = null;
  let logoNotes = parseNotes(found.logos);
  const operatorSent = Boolean(found.operator);
  if (!operatorSent) {
    if (found.logos) logos = await deps.store.readLogos(id);
    if (!logos && logoUrls.length === 0) logos = [];
    if (!logos) {
      const fetched = await timed('logos', () => collectLogos(logoUrls, { ...deps.logos, log }));
      logoNotes = fetched.filter((l) => l.note).map((l) => `${l.url}: ${l.note}`);
      attempt.at = take('recordLogos', attempt.at, id);
      // The step's value is the notes: the list entry needs them after the logos are gone.
      await deps.store.record(id, 'logos', { value: JSON.stringify(logoNotes), next: 'operator', logos: { set: fetched } });
      logos = fetched;
    }
  }

  // Records of earlier versions may show the confirmation sent; then nothing is left to decide.
  const { confirmation, requestsToday } = found.contact ? { confirmation: 'send' as const, requestsToday: undefined } : await decideConfirmation(attempt);

  if (!operatorSent) {
    const message = buildOperatorMail(data, logos ?? [], deps.mail, { confirmation, requestsToday });
    await sendOnce(attempt, 'operator', () => deps.mailer.send('operator', id, message));
    attempt.at = take('recordOperator', attempt.at, id);
    // Stored logos go with this record; a request without them has none to delete.
    await deps.store.record(id, 'operator', { next: 'contact', logos: found.logos || logoUrls.length ? 'delete' : undefined });
    log.info({ to: deps.mail.operatorEmail }, 'operator e-mail sent');
  }

  if (confirmation === 'hold') {
    log.info('confirmation e-mail held back: the daily limit for its address is reached');
  } else if (!found.contact) {
    const message = buildContactMail(data, deps.mail);
    await sendOnce(attempt, 'contact', () => deps.mailer.send('confirmation', id, message));
    log.info('confirmation e-mail sent');
  }

  attempt.at = take('appendListEntry', attempt.at, id);
  // The last step records itself: the entry and its marker are written in one script.
  const entry = await timed('list', () => deps.store.appendListEntry(id, listFields(data, logoNotes, { confirmation })));
  // The job completes only once the replicas hold the entry (REDIS_WAIT_REPLICAS).
  await deps.store.confirmListEntry(id);
  log.info({ listEntry: entry }, 'shop request delivered');
  return { list_entry: entry };
}

function parseJob(job: Job): IntakeJob {
  const parsed = IntakeJob.safeParse(job.data);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).slice(0, 10);
  throw new UnrecoverableError(`invalid intake payload: ${problems.join('; ')}`);
}

/**
 * The confirmation limit's answer for this request. A job added today was
 * decided today if at all, so the limit looks for yesterday's decision only
 * for a job added before (a retry just after midnight).
 */
async function decideConfirmation(attempt: Attempt): Promise<{ confirmation: ConfirmationDecision; requestsToday: RequestsToday }> {
  const { deps, data, job, id } = attempt;
  const decided = await deps.confirmations.decide(id, data.body.organization.email, { addedAt: job.timestamp });
  if (decided.decision === 'hold' && decided.first) deps.confirmationsHeld?.inc();
  return { confirmation: decided.decision, requestsToday: decided.requestsToday };
}

/**
 * Sends an e-mail once it is marked begun: a mark an earlier attempt left
 * means that attempt may have sent it (warned, sent again with the same
 * Message-ID); a refusal before any data takes the mark back.
 */
async function sendOnce(attempt: Attempt, step: 'operator' | 'contact', send: () => Promise<void>): Promise<void> {
  const { deps, id, log } = attempt;
  const [begin, takeBack] = step === 'operator' ? (['beginOperator', 'takeBackOperator'] as const) : (['beginConfirmation', 'takeBackConfirmation'] as const);
  const earlier = attempt.found[`${step}_pending`];
  if (earlier) log.warn({ step }, 'an earlier attempt may have sent this e-mail; sending it again with the same Message-ID');
  else if (mayTake(begin, attempt.at)) {
    attempt.at = take(begin, attempt.at, id);
    await deps.store.markPending(id, step);
  }
  try {
    await attempt.timed(step, send);
  } catch (err) {
    if (!earlier && failedBeforeData(err)) {
      attempt.at = take(takeBack, attempt.at, id);
      await deps.store.clearPending(id, step).catch(() => undefined);
    }
    throw err;
  }
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

async function timeStep<T>(histogram: Histogram | undefined, step: Step, work: () => Promise<T>): Promise<T> {
  const end = histogram?.startTimer({ step });
  try {
    return await work();
  } finally {
    end?.();
  }
}
