import { ShopRequestBody, ShopRequestIdParams, type CallContext, type Scope } from '@msa/contracts';
import {
  appError,
  bindIdempotency,
  forbidden,
  idempotency,
  idempotencyOf,
  methodNotAllowed,
  notFound,
  limitKeyOfAddress,
  parseOr,
  type RedisClient,
} from '@msa/service-kit';
import { setRateLimitHeaders, type LimitState } from '@msa/service-kit/limits';
import { Router, type RequestHandler } from 'express';
import {
  createShopRequest,
  invalidShopRequest,
  newShopRequestId,
  submitterOf,
  type ShopRequestCaller,
  type ShopRequestDeps,
} from '../domain/create-shop-request.js';
import { NO_BARRIER, type AcceptanceBarrier } from '../store/replication.js';

export interface ShopRequestRoutesDeps extends ShopRequestDeps {
  redis: RedisClient;
  keyPrefix: string;
  /** IDEMPOTENCY_LOCK_SECONDS: how long a request in progress holds its key. */
  idempotencyLockSeconds?: number;
  /** IPV6_LIMIT_PREFIX: an anonymous IPv6 caller is its prefix, for ownership and the daily quota alike. */
  ipv6LimitPrefix?: number;
  /** Waits for replicas to hold a request's writes before it is answered 201 (REDIS_WAIT_REPLICAS). */
  barrier?: AcceptanceBarrier;
  now?: () => Date;
}

/**
 * Who owns what a call creates: the principal, or for an anonymous sandbox
 * call the client's address as per-address limits count it (IPv6 by its
 * prefix), so the daily quota of an anonymous caller is one per /64.
 */
function ownerIdOf(ctx: CallContext, ipv6Prefix?: number): string {
  return ctx.principal ? ctx.principal.id : `anon:${limitKeyOfAddress(ctx.ip, { ipv6Prefix })}`;
}

/**
 * The gateway already checked credentials and scope; checked again here so the
 * service stays safe when called by another route. Anonymous calls exist only
 * on the sandbox (MCP without credentials).
 */
function authorize(scope: Scope, ipv6Prefix?: number): RequestHandler {
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
    const submitter = submitterOf(principal);
    res.locals.caller = {
      ownerId: ownerIdOf(req.ctx, ipv6Prefix),
      anonymous: !principal,
      address: limitKeyOfAddress(req.ctx.ip, { ipv6Prefix }),
      ...(submitter ? { submitter } : {}),
    } satisfies ShopRequestCaller;
    next();
  };
}

export function shopRequestRoutes(deps: ShopRequestRoutesDeps): Router {
  const { redis, keyPrefix, store, publicBaseUrl } = deps;
  const barrier = deps.barrier ?? NO_BARRIER;
  const now = deps.now ?? (() => new Date());
  const locationOf = (id: string, sandbox: boolean) => `${publicBaseUrl}${sandbox ? '/sandbox' : ''}/v1/shop-requests/${id}`;
  const router = Router();

  // Mounted after authorize and before the quota: a replay answers from the
  // stored response and never counts against the day's quota.
  const idempotent = idempotency({
    redis,
    keyPrefix: `${keyPrefix}shop-requests:`,
    // A key used on the sandbox must not replay its result for a live call.
    scope: (req) => `${ownerIdOf(req.ctx, deps.ipv6LimitPrefix)}:${req.ctx.sandbox ? 'sandbox' : 'live'}`,
    ...(deps.idempotencyLockSeconds ? { lockSeconds: deps.idempotencyLockSeconds } : {}),
    // The first attempt died after binding its key: answer from what it stored.
    recover: async ({ resource, req, res }) => {
      const record = await store.get(resource);
      if (!record || record.ownerId !== ownerIdOf(req.ctx, deps.ipv6LimitPrefix)) return false;
      // Read from the master: the attempt that stored it may have died before its replicas had it.
      await barrier.beforeAnswer(res, record.result.id, req.log).catch((err: unknown) => {
        res.removeHeader('Idempotent-Replayed');
        throw err;
      });
      res.setHeader('Location', locationOf(record.result.id, req.ctx.sandbox));
      res.status(201).json(record.result);
      return true;
    },
  });

  const create: RequestHandler = async (req, res) => {
    const parsed = ShopRequestBody.safeParse(req.body);
    if (!parsed.success) throw await invalidShopRequest(deps, req.ctx, req.body, parsed.error);

    // A retry of a request that was interrupted after binding its key creates the same id.
    const id = idempotencyOf(res)?.resource ?? newShopRequestId();
    const call = {
      id,
      caller: res.locals.caller as ShopRequestCaller,
      ctx: req.ctx,
      trace: { request_id: req.id, traceparent: req.traceparent },
      at: now(),
      log: req.log,
      bindIdempotencyKey: async () => {
        await bindIdempotency(res, id);
        await barrier.afterBind(res, req.log);
      },
      showQuota: (...states: LimitState[]) => setRateLimitHeaders(res, ...states),
    };
    const result = await createShopRequest(deps, call, parsed.data);
    await barrier.beforeAnswer(res, result.id, req.log);

    res.setHeader('Location', locationOf(result.id, req.ctx.sandbox));
    res.status(201).json(result);
  };

  const read: RequestHandler = async (req, res) => {
    const { ownerId } = res.locals.caller as ShopRequestCaller;
    const { id } = parseOr(ShopRequestIdParams, req.params, 'invalid_request', 'The shop request id is malformed.');
    const record = await store.get(id);
    if (!record) throw notFound('shop_request_not_found', `No shop request with id '${id}'.`);
    if (record.ownerId !== ownerId) throw forbidden('This shop request was created with other credentials.');
    res.json(record.result);
  };

  const env = { publicBaseUrl };
  router.route('/').post(authorize('requests:write', deps.ipv6LimitPrefix), idempotent, create).all(methodNotAllowed(env, ['POST']));
  router.route('/:id').get(authorize('requests:read', deps.ipv6LimitPrefix), read).all(methodNotAllowed(env, ['GET']));
  return router;
}
