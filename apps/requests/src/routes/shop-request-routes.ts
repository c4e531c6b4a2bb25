import { ShopRequestBody, ShopRequestIdParams, type CallContext, type ShopRequestResult } from '@msa/contracts';
import {
  forbidden,
  limitKeyOfAddress,
  methodNotAllowed,
  notFound,
  operationOf,
  parseOr,
  requireScope,
  routePathOf,
  withOutcome,
  type OutcomeCounter,
  type RedisClient,
} from '@msa/service-kit';
import { setRateLimitHeaders } from '@msa/service-kit/limits';
import { Router, type RequestHandler } from 'express';
import { createShopRequest, invalidShopRequest, modeOf, submitterOf, type ShopRequestCaller, type ShopRequestDeps } from '../domain/create-shop-request.js';
import { newId } from '../domain/new-id.js';
import type { AcceptanceBarrier } from '../store/replication.js';
import { createAccept } from './accept.js';

export interface ShopRequestRoutesDeps extends ShopRequestDeps {
  redis: RedisClient;
  keyPrefix: string;
  /** Labels: mode (live, sandbox), outcome (created, invalid, rate_limited, unavailable). */
  counters: { requests: OutcomeCounter };
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
function authorize(operation: 'createShopRequest' | 'getShopRequest', ipv6Prefix?: number): RequestHandler[] {
  const identify: RequestHandler = (req, res, next) => {
    const { principal } = req.ctx;
    const submitter = submitterOf(principal);
    res.locals.caller = {
      ownerId: ownerIdOf(req.ctx, ipv6Prefix),
      anonymous: !principal,
      address: limitKeyOfAddress(req.ctx.ip, { ipv6Prefix }),
      ...(submitter ? { submitter } : {}),
    } satisfies ShopRequestCaller;
    next();
  };
  return [requireScope(operation, { anonymous: (req) => req.ctx.sandbox }), identify];
}

export function shopRequestRoutes(deps: ShopRequestRoutesDeps): Router {
  const { store, publicBaseUrl, ipv6LimitPrefix } = deps;
  const now = deps.now ?? (() => new Date());
  const router = Router();

  // Mounted after authorize and before the quota: a replay answers from the
  // stored response and never counts against the day's quota.
  const accept = createAccept<ShopRequestResult>({
    publicBaseUrl,
    readPath: operationOf('getShopRequest').path,
    ...(deps.barrier ? { barrier: deps.barrier } : {}),
    idempotency: {
      redis: deps.redis,
      keyPrefix: `${deps.keyPrefix}shop-requests:`,
      // A key used on the sandbox must not replay its result for a live call.
      scope: (req) => `${ownerIdOf(req.ctx, ipv6LimitPrefix)}:${modeOf(req.ctx)}`,
      ...(deps.idempotencyLockSeconds ? { lockSeconds: deps.idempotencyLockSeconds } : {}),
      newId: () => newId('req'),
      stored: async (id, req) => {
        const record = await store.get(id);
        return record && record.ownerId === ownerIdOf(req.ctx, ipv6LimitPrefix) ? record.result : null;
      },
    },
  });

  const create: RequestHandler = async (req, res) => {
    const call = {
      id: accept.idOf(res),
      caller: res.locals.caller as ShopRequestCaller,
      ctx: req.ctx,
      trace: { request_id: req.id, traceparent: req.traceparent },
      at: now(),
      log: req.log,
    };
    const { result, quota } = await withOutcome(deps.counters.requests, { mode: modeOf(req.ctx) }, async () => {
      const parsed = ShopRequestBody.safeParse(req.body);
      if (!parsed.success) throw await invalidShopRequest(deps, req.ctx, req.body, parsed.error);
      return createShopRequest(deps, call, parsed.data);
    });
    setRateLimitHeaders(res, ...quota);
    await accept.created(req, res, result.id, result);
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
  router
    .route(routePathOf('createShopRequest'))
    .post(...authorize('createShopRequest', ipv6LimitPrefix), ...accept.before, create)
    .all(methodNotAllowed(env, ['POST']));
  router
    .route(routePathOf('getShopRequest'))
    .get(...authorize('getShopRequest', ipv6LimitPrefix), read)
    .all(methodNotAllowed(env, ['GET']));
  return router;
}
