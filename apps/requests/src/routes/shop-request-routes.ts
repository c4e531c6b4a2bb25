import { randomBytes } from 'node:crypto';
import { ShopRequestBody, ShopRequestIdParams, type CallContext, type FieldProblem, type Scope } from '@msa/contracts';
import {
  appError,
  bindIdempotency,
  forbidden,
  idempotency,
  idempotencyOf,
  isRedisUnavailable,
  methodNotAllowed,
  notFound,
  parseOr,
  rateLimitedError,
  serviceUnavailableError,
  setRateLimitHeaders,
  toFieldProblems,
  utcDay,
  type DailyQuota,
  type LimitState,
  type Logger,
  type Metrics,
  type Reservation,
} from '@msa/service-kit';
import { Router, type RequestHandler } from 'express';
import type { RedisClient } from '@msa/service-kit';
import type { ProductCatalog } from '../catalog/product-catalog.js';
import { createProductIndex } from '../domain/product-index.js';
import { buildShopRequestResult, unknownProductsInRawBody } from '../domain/shop-request-result.js';
import type { IntakeQueue } from '../intake/intake-queue.js';
import { intakeJobOf } from '../intake/reconciler.js';
import type { ShopRequestQuotas } from '../store/shop-request-quotas.js';
import { ClaimAbandonedError, type ShopRequestStore, type StoredShopRequest } from '../store/shop-request-store.js';

type Counter = ReturnType<Metrics['counter']>;

export interface ShopRequestCounters {
  /** Labels: mode (live, sandbox), outcome (created, invalid, rate_limited, unavailable). */
  requests: Counter;
  enqueueFailures: Counter;
}

export interface ShopRequestRoutesDeps {
  redis: RedisClient;
  keyPrefix: string;
  store: ShopRequestStore;
  quotas: ShopRequestQuotas;
  catalog: ProductCatalog;
  intake: Pick<IntakeQueue, 'enqueue'>;
  publicBaseUrl: string;
  counters: ShopRequestCounters;
  /** IDEMPOTENCY_LOCK_SECONDS: how long a request in progress holds its key. */
  idempotencyLockSeconds?: number;
  now?: () => Date;
}

interface Caller {
  ownerId: string;
  anonymous: boolean;
}

const NO_PRODUCTS = createProductIndex([]);

/** Who owns what a call creates: the principal, or the client IP for an anonymous sandbox call. */
function ownerIdOf(ctx: CallContext): string {
  return ctx.principal ? ctx.principal.id : `anon:${ctx.ip}`;
}

/**
 * The gateway already checked credentials and scope; checked again here so the
 * service stays safe when called by another route. Anonymous calls exist only
 * on the sandbox (MCP without credentials).
 */
function authorize(scope: Scope): RequestHandler {
  return (req, res, next) => {
    const { principal, sandbox } = req.ctx;
    if (!principal && !sandbox) {
      throw appError('unauthorized', 'Shop requests need credentials.', {
        hint: 'Send `Authorization: Bearer <API_KEY>`; create free credentials with POST /v1/keys.',
      });
    }
    if (principal && !principal.scopes.includes(scope)) {
      throw appError('insufficient_scope', `This operation needs the scope ${scope}.`, {
        hint: `Create credentials that include ${scope} with POST /v1/keys, or ask for it in the token request.`,
      });
    }
    res.locals.caller = { ownerId: ownerIdOf(req.ctx), anonymous: !principal } satisfies Caller;
    next();
  };
}

function hasProducts(raw: unknown): boolean {
  const products = raw && typeof raw === 'object' ? (raw as { products?: unknown }).products : undefined;
  return Array.isArray(products) && products.length > 0;
}

function invalid(fields: FieldProblem[]) {
  const problems = fields.length === 1 ? 'one problem' : `${fields.length} problems`;
  return appError('validation_failed', `The shop request has ${problems}; see error.fields.`, { fields });
}

/**
 * A Redis that stopped answering may have kept the write whose reply was
 * lost, so "nothing was stored" would be a guess: a retry with the same
 * Idempotency-Key settles it (503, Retry-After). Anything else failed for sure.
 */
function storeFailure(err: unknown) {
  return isRedisUnavailable(err)
    ? serviceUnavailableError('The shop request could not be confirmed right now; retry with the same Idempotency-Key and it is created at most once.')
    : appError('intake_unavailable', 'The shop request could not be stored; nothing was accepted.');
}

function nextUtcMidnight(now: Date): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
}

export function shopRequestRoutes(deps: ShopRequestRoutesDeps): Router {
  const { redis, keyPrefix, store, quotas, catalog, intake, publicBaseUrl, counters } = deps;
  const now = deps.now ?? (() => new Date());
  const env = { publicBaseUrl };
  const router = Router();

  // Mounted after authorize and before the quota: a replay answers from the
  // stored response and never counts against the day's quota.
  const idempotent = idempotency({
    redis,
    keyPrefix: `${keyPrefix}shop-requests:`,
    // A key used on the sandbox must not replay its result for a live call.
    scope: (req) => `${ownerIdOf(req.ctx)}:${req.ctx.sandbox ? 'sandbox' : 'live'}`,
    ...(deps.idempotencyLockSeconds ? { lockSeconds: deps.idempotencyLockSeconds } : {}),
    // The first attempt died after binding its key: answer from what it stored.
    recover: async ({ resource, req, res }) => {
      const record = await store.get(resource);
      if (!record || record.ownerId !== ownerIdOf(req.ctx)) return false;
      res.setHeader('Location', locationOf(record.result.id, req.ctx.sandbox));
      res.status(201).json(record.result);
      return true;
    },
  });
  const locationOf = (id: string, sandbox: boolean) => `${publicBaseUrl}${sandbox ? '/sandbox' : ''}/v1/shop-requests/${id}`;

  const create: RequestHandler = async (req, res) => {
    const caller = res.locals.caller as Caller;
    const sandbox = req.ctx.sandbox;
    const mode = sandbox ? 'sandbox' : 'live';
    const count = (outcome: 'created' | 'invalid' | 'rate_limited' | 'unavailable') => counters.requests.inc({ mode, outcome });

    const parsed = ShopRequestBody.safeParse(req.body);
    if (!parsed.success) {
      count('invalid');
      const fields = toFieldProblems(parsed.error);
      // A catalog that is down only costs the product problems here, never the answer.
      const index = hasProducts(req.body) ? await catalog.index(req.ctx).catch(() => undefined) : undefined;
      if (index) {
        const reported = new Set(fields.map((f) => f.field));
        fields.push(...unknownProductsInRawBody(req.body, index).filter((p) => !reported.has(p.field)));
      }
      throw invalid(fields);
    }
    const body = parsed.data;

    const started = now();
    // A retry of a request that was interrupted after binding its key creates the same id.
    const id = idempotencyOf(res)?.resource ?? `req_${randomBytes(8).toString('hex')}`;
    const unavailable = (err: unknown, what: string) => {
      req.log.error({ err, shopRequestId: id }, what);
      count('unavailable');
      return storeFailure(err);
    };
    // Each step is written before the next can commit anything, so a crash at
    // any point leaves a state a retry or the reconciler completes: the key
    // names the id, the claim names the owner and day of the quota unit.
    await bindIdempotency(res, id);
    try {
      await store.begin(id, { ownerId: caller.ownerId, day: utcDay(started), mode });
    } catch (err) {
      throw unavailable(err, 'shop request not begun');
    }
    const quota: DailyQuota = sandbox ? quotas.sandbox : quotas.live;
    let reservation: Reservation;
    try {
      reservation = await quota.reserve(caller.ownerId, started, id);
    } catch (err) {
      throw unavailable(err, 'daily quota unavailable');
    }
    const forget = () => store.forget(id).catch((err: unknown) => req.log.warn({ err, shopRequestId: id }, 'pending claim not dropped; the reconciler will'));
    if (!reservation.allowed) {
      await forget();
      count('rate_limited');
      setRateLimitHeaders(res, reservation.state);
      throw dailyLimitError(reservation.state, sandbox, started);
    }

    let record: StoredShopRequest;
    try {
      const products = body.products?.length
        ? await catalog.index(req.ctx).catch((err: unknown) => {
            count('unavailable');
            throw err;
          })
        : NO_PRODUCTS;
      const outcome = buildShopRequestResult(body, products, {
        id,
        createdAt: started,
        sandbox,
        anonymous: caller.anonymous,
        publicBaseUrl,
      });
      if (!outcome.ok) {
        count('invalid');
        throw invalid(outcome.problems);
      }
      record = {
        result: outcome.result,
        body,
        ownerId: caller.ownerId,
        intake: sandbox ? 'none' : 'pending',
        trace: { request_id: req.id, traceparent: req.traceparent },
      };
      try {
        await store.create(record);
      } catch (err) {
        if (err instanceof ClaimAbandonedError) {
          // The reconciler took this request for dead and gave its unit back.
          req.log.warn({ shopRequestId: id }, 'shop request took too long and was given up; not stored');
          count('unavailable');
          throw serviceUnavailableError('The shop request took too long and was not stored; retry with the same Idempotency-Key.');
        }
        req.log.error({ err }, 'shop request not stored');
        count('unavailable');
        throw storeFailure(err);
      }
    } catch (err) {
      // Not accepted, so it does not count against the day.
      await reservation.refund().catch((refundErr: unknown) => req.log.warn({ err: refundErr }, 'quota refund failed; the reconciler will refund it'));
      await forget();
      throw err;
    }

    // Stored: from here on the request is accepted whatever the queue does.
    count('created');
    if (!sandbox) await handOver(record, req.log);

    setRateLimitHeaders(res, reservation.state);
    res.setHeader('Location', locationOf(record.result.id, sandbox));
    res.status(201).json(record.result);
  };

  /** Store first, enqueue second: if the enqueue fails, the reconciler finds the stored request and queues it. */
  async function handOver(record: StoredShopRequest, log: Logger) {
    const id = record.result.id;
    try {
      await intake.enqueue(intakeJobOf(record));
    } catch (err) {
      counters.enqueueFailures.inc();
      log.warn({ err, shopRequestId: id }, 'shop request stored but not queued; the reconciler will queue it');
      return;
    }
    try {
      await store.markQueued(id);
    } catch (err) {
      // The job is on the queue; the reconciler re-adds it under the same job id (a no-op) and marks it.
      log.warn({ err, shopRequestId: id }, 'shop request queued but not marked');
    }
  }

  function dailyLimitError(state: LimitState, sandbox: boolean, at: Date) {
    const what = sandbox ? 'sandbox shop requests' : 'live shop requests';
    return rateLimitedError(
      state,
      `Daily limit reached: ${state.limit} ${what} per day. The day resets at UTC midnight (${nextUtcMidnight(at)}).`,
      sandbox
        ? 'Wait the seconds in `Retry-After`; the count starts again at UTC midnight.'
        : 'Wait the seconds in `Retry-After`; the count starts again at UTC midnight. Meanwhile the sandbox accepts 200 shop requests a day.',
    );
  }

  const read: RequestHandler = async (req, res) => {
    const caller = res.locals.caller as Caller;
    const { id } = parseOr(ShopRequestIdParams, req.params, 'invalid_request', 'The shop request id is malformed.');
    const record = await store.get(id);
    if (!record) throw notFound('shop_request_not_found', `No shop request with id '${id}'.`);
    if (record.ownerId !== caller.ownerId) throw forbidden('This shop request was created with other credentials.');
    res.json(record.result);
  };

  router
    .route('/')
    .post(authorize('requests:write'), idempotent, create)
    .all(methodNotAllowed(env, ['POST']));
  router
    .route('/:id')
    .get(authorize('requests:read'), read)
    .all(methodNotAllowed(env, ['GET']));

  return router;
}
