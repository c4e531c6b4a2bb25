// Accepting a shop request, from a parsed body to a stored record that a live
// request also hands to the intake worker. No express: the route passes in
// what it knows about the call and answers with what this returns.
//
// The order is deliberate (docs/decisions/crash-consistent-intake.md): each
// step is written before the next can commit anything, so a crash at any
// point leaves a state a retry or the reconciler completes. The key names the
// id, the claim names the owner and day of the quota unit, the unit is named
// by the id. The steps this takes (claim, store, queue, or forget when it
// gives up) and the states they lead to are the table in acceptance.ts.
// The route binds the Idempotency-Key to the id before this runs, and counts
// what became of the request from what this returns or throws.
import {
  LIMITS,
  QUOTE_ID_PATTERN,
  type CallContext,
  type ConfirmedSubmitter,
  type FieldProblem,
  type Principal,
  type Quote,
  type RequestTrace,
  type ShopRequestBody,
  type ShopRequestResult,
} from '@msa/contracts';
import { appError, isRedisUnavailable, mailboxDomain, serviceUnavailableError, type AppError, type Logger } from '@msa/service-kit';
import { nextUtcMidnight, rateLimitedError, utcDay, withReservation, type LimitState, type Reservation } from '@msa/service-kit/limits';
import type { z } from 'zod';
import type { ProductCatalog } from '../catalog/product-catalog.js';
import { handOver } from '../intake/hand-over.js';
import type { IntakeQueue } from '../intake/intake-queue.js';
import type { QuoteStore } from '../store/quote-store.js';
import { refundAll, reserveAll } from '../store/reserve-all.js';
import { countedQuotas, domainQuotaKey, type CountedKeys, type ShopRequestQuotas } from '../store/shop-request-quotas.js';
import type { ShopRequestStore, StoredShopRequest } from '../store/shop-request-store.js';
import { ClaimAbandonedError, intakeWhenStored, type Mode } from './acceptance.js';
import { invalidBody, schemaProblems } from './invalid-body.js';
import { createProductIndex, type ProductIndex } from './product-index.js';
import { buildShopRequestResult, unknownQuote } from './shop-request-result.js';
import { StoredRecordTooLarge, tooLargeProblem } from './stored-size.js';

export interface ShopRequestDeps {
  store: ShopRequestStore;
  quotas: ShopRequestQuotas;
  catalog: ProductCatalog;
  /** Where a named `quote_id` is looked up. */
  quotes: Pick<QuoteStore, 'get'>;
  intake: Pick<IntakeQueue, 'enqueue'>;
  publicBaseUrl: string;
}

/** Who owns what the call creates: a principal, or `anon:<ip>` for an anonymous sandbox call. */
export interface ShopRequestCaller {
  ownerId: string;
  anonymous: boolean;
  /** The client address as per-address limits count it (IPv6 by its prefix); a sandbox request counts on it too. */
  address?: string;
  /** The person behind the principal, when they confirmed their address on the consent page. */
  submitter?: ConfirmedSubmitter;
}

/**
 * The confirmed submitter of a principal that came through the authorization
 * code grant: the address confirmed on the consent page and the client the
 * person authorized. Other principals (API keys, client credentials) have none.
 */
export function submitterOf(principal: Principal | null): ConfirmedSubmitter | undefined {
  if (!principal?.confirmed_email || !principal.client) return undefined;
  return { email: principal.confirmed_email, client_id: principal.client.id, client_name: principal.client.name };
}

export interface ShopRequestCall {
  id: string;
  caller: ShopRequestCaller;
  /** Says whether the call is on the sandbox; passed on to the catalog. */
  ctx: CallContext;
  trace: RequestTrace;
  at: Date;
  log: Logger;
}

export interface AcceptedShopRequest {
  result: ShopRequestResult;
  /** The caller's own daily quotas after this request (RateLimit headers); a refusal carries its quota on its 429. */
  quota: LimitState[];
}

/** The modes a shop request is counted by (metric label, quota, acceptance table). */
export function modeOf(ctx: CallContext): Mode {
  return ctx.sandbox ? 'sandbox' : 'live';
}

const NO_PRODUCTS = createProductIndex([]);

export async function createShopRequest(deps: ShopRequestDeps, call: ShopRequestCall, body: ShopRequestBody): Promise<AcceptedShopRequest> {
  const counted = countedKeysOf(call, body);
  await beginClaim(deps, call, counted);
  const reservations = await reserveQuotas(deps, call, body, counted);

  const record = await withReservation(
    { refund: () => refundAll(reservations) },
    async () => {
      const [products, quote] = await Promise.all([resolveProducts(deps, call, body), resolveQuote(deps, call, body)]);
      const result = buildResult(deps, call, body, products, quote);
      return store(deps, call, body, result, quote);
    },
    (err) => call.log.warn({ err }, 'quota refund failed; the reconciler will refund it'),
  ).catch(async (err: unknown) => {
    // Not accepted: withReservation gave its unit back, and its claim goes too.
    await forgetClaim(deps, call);
    throw err;
  });

  // Stored: from here on the request is accepted whatever the queue does.
  if (!call.ctx.sandbox) await handOverLive(deps, call, record);
  // The domain's count is other callers' business too: it shows only on its own 429.
  const quota = reservations.filter((r) => r.state.policy !== deps.quotas.livePerDomain.policy).map((r) => r.state);
  return { result: record.result, quota };
}

/**
 * A body that failed its schema: the 422 names every problem at once, the
 * unknown products and an unknown quote too. A catalog or store that is down
 * only costs those problems here, never the answer.
 */
export async function invalidShopRequest(deps: ShopRequestDeps, ctx: CallContext, raw: unknown, error: z.ZodError): Promise<AppError> {
  const fields = await schemaProblems(deps.catalog, ctx, raw, error, 'products');
  const reported = new Set(fields.map((f) => f.field));
  const quoteId = raw && typeof raw === 'object' ? (raw as { quote_id?: unknown }).quote_id : undefined;
  if (typeof quoteId === 'string' && QUOTE_ID_PATTERN.test(quoteId) && !reported.has('quote_id')) {
    const quote = await deps.quotes.get(quoteId).catch(() => undefined);
    if (quote === null) fields.push(unknownQuote(quoteId));
  }
  return invalid(fields);
}

/** Whom the request counts for: its owner, and its client address (sandbox) or its contact's mail domain (live). */
function countedKeysOf(call: ShopRequestCall, body: ShopRequestBody): CountedKeys {
  if (!call.ctx.sandbox) return { ownerId: call.caller.ownerId, domain: domainQuotaKey(body.organization.email) };
  return { ownerId: call.caller.ownerId, ...(call.caller.address ? { address: call.caller.address } : {}) };
}

/** The `claim` step: the id is pending, with the owner and day its quota units will count on, and the other keys they count on. */
async function beginClaim(deps: ShopRequestDeps, call: ShopRequestCall, counted: CountedKeys): Promise<void> {
  try {
    await deps.store.begin(call.id, { ...counted, day: utcDay(call.at), mode: modeOf(call.ctx) });
  } catch (err) {
    throw unavailable(call, err, 'shop request not begun');
  }
}

async function reserveQuotas(deps: ShopRequestDeps, call: ShopRequestCall, body: ShopRequestBody, counted: CountedKeys): Promise<Reservation[]> {
  let outcome: Awaited<ReturnType<typeof reserveAll>>;
  try {
    outcome = await reserveAll(countedQuotas(deps.quotas, modeOf(call.ctx), counted), call.at, call.id);
  } catch (err) {
    throw unavailable(call, err, 'daily quota unavailable');
  }
  if (!outcome.allowed) {
    await forgetClaim(deps, call);
    const { state } = outcome.refused;
    throw dailyLimitError(state, limitOf(deps.quotas, state.policy, body), call.at);
  }
  return outcome.reservations;
}

/** What a refused quota counted, in the words of its 429. */
function limitOf(quotas: ShopRequestQuotas, policy: string, body: ShopRequestBody): DailyLimit {
  if (policy === quotas.livePerDomain.policy) return { what: 'live shop requests', scope: ` for contacts at ${mailboxDomain(body.organization.email)}, whoever sends them`, sandbox: false };
  if (policy === quotas.sandboxPerAddress.policy) return { what: 'sandbox shop requests', scope: ' from this address, whatever the credentials', sandbox: true };
  if (policy === quotas.sandbox.policy) return { what: 'sandbox shop requests', scope: '', sandbox: true };
  return { what: 'live shop requests', scope: '', sandbox: false };
}

async function resolveProducts(deps: ShopRequestDeps, call: ShopRequestCall, body: ShopRequestBody): Promise<ProductIndex> {
  if (!body.products?.length) return NO_PRODUCTS;
  return deps.catalog.index(call.ctx);
}

/** The quote the body names, null when it is unknown or expired; undefined when it names none. */
async function resolveQuote(deps: ShopRequestDeps, call: ShopRequestCall, body: ShopRequestBody): Promise<Quote | null | undefined> {
  if (body.quote_id === undefined) return undefined;
  return deps.quotes.get(body.quote_id).catch((err: unknown) => {
    throw unavailable(call, err, 'named quote not read');
  });
}

function buildResult(deps: ShopRequestDeps, call: ShopRequestCall, body: ShopRequestBody, products: ProductIndex, quote: Quote | null | undefined): ShopRequestResult {
  const outcome = buildShopRequestResult(
    body,
    products,
    {
      id: call.id,
      createdAt: call.at,
      sandbox: call.ctx.sandbox,
      anonymous: call.caller.anonymous,
      publicBaseUrl: deps.publicBaseUrl,
    },
    quote,
  );
  if (!outcome.ok) throw invalid(outcome.problems);
  return outcome.result;
}

/** The `store` step: from here on the request is accepted. */
async function store(
  deps: ShopRequestDeps,
  call: ShopRequestCall,
  body: ShopRequestBody,
  result: ShopRequestResult,
  quote: Quote | null | undefined,
): Promise<StoredShopRequest> {
  const record: StoredShopRequest = {
    result,
    body,
    ownerId: call.caller.ownerId,
    intake: intakeWhenStored(modeOf(call.ctx)),
    trace: call.trace,
    // Kept with the request: the quote expires long before the operator is done with it.
    ...(quote ? { quote } : {}),
    // Only a live request reaches the operator, who is told who submitted it.
    ...(call.caller.submitter && !call.ctx.sandbox ? { submitter: call.caller.submitter } : {}),
  };
  try {
    await deps.store.create(record);
  } catch (err) {
    if (err instanceof StoredRecordTooLarge) {
      // Refused before anything was written; the unit and the claim go back like any 422's.
      throw invalid([tooLargeProblem(err)]);
    }
    if (err instanceof ClaimAbandonedError) {
      // The reconciler took this request for dead and gave its unit back.
      call.log.warn({ shopRequestId: call.id }, 'shop request took too long and was given up; not stored');
      throw serviceUnavailableError('The shop request took too long and was not stored; retry with the same Idempotency-Key.');
    }
    call.log.error({ err }, 'shop request not stored');
    throw storeFailure(err);
  }
  return record;
}

async function handOverLive(deps: ShopRequestDeps, call: ShopRequestCall, record: StoredShopRequest): Promise<void> {
  const handed = await handOver(deps, record);
  if (handed.outcome === 'not_queued') {
    call.log.warn({ err: handed.err, shopRequestId: call.id }, 'shop request stored but not queued; the reconciler will queue it');
  } else if (handed.outcome === 'not_marked') {
    // The job is on the queue; the reconciler re-adds it under the same job id (a no-op) and marks it.
    call.log.warn({ err: handed.err, shopRequestId: call.id }, 'shop request queued but not marked');
  }
}

/** The `forget` step: the POST gives up before storing; the reconciler would drop the claim too, only later. */
async function forgetClaim({ store }: ShopRequestDeps, call: ShopRequestCall): Promise<void> {
  await store.forget(call.id).catch((err: unknown) => call.log.warn({ err, shopRequestId: call.id }, 'pending claim not dropped; the reconciler will'));
}

function unavailable(call: ShopRequestCall, err: unknown, what: string): AppError {
  call.log.error({ err, shopRequestId: call.id }, what);
  return storeFailure(err);
}

function invalid(fields: FieldProblem[]): AppError {
  return invalidBody('shop request', fields);
}

/**
 * A Redis that stopped answering may have kept the write whose reply was
 * lost, so "nothing was stored" would be a guess: a retry with the same
 * Idempotency-Key settles it (503, Retry-After). Anything else failed for sure.
 */
function storeFailure(err: unknown): AppError {
  return isRedisUnavailable(err)
    ? serviceUnavailableError('The shop request could not be confirmed right now; retry with the same Idempotency-Key and it is created at most once.')
    : appError('intake_unavailable', 'The shop request could not be stored; nothing was accepted.');
}

interface DailyLimit {
  what: string;
  /** Whose count it is, when not the caller's own. */
  scope: string;
  sandbox: boolean;
}

function dailyLimitError(state: LimitState, { what, scope, sandbox }: DailyLimit, at: Date): AppError {
  return rateLimitedError(
    state,
    `Daily limit reached: ${state.limit} ${what} per day${scope}. The day resets at UTC midnight (${nextUtcMidnight(at).toISOString()}).`,
    sandbox
      ? 'Wait the seconds in `Retry-After`; the count starts again at UTC midnight.'
      : `Wait the seconds in \`Retry-After\`; the count starts again at UTC midnight. Meanwhile the sandbox accepts ${LIMITS.sandboxShopRequestsPerDay} shop requests a day.`,
    { showQuota: true },
  );
}
