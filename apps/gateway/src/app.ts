import { API_VERSION, BOUNDS, DEPRECATIONS, type Deprecation, type InternalSigner } from '@msa/contracts';
import {
  createAdminApp,
  DEFAULT_BODY_DEADLINE_MS,
  errorHandler,
  healthRoutes,
  notFoundHandler,
  requestContext,
  type Logger,
  type Metrics,
} from '@msa/service-kit';
import type { FailureLimiter } from '@msa/service-kit/limits';
import express, { type Express, type RequestHandler } from 'express';
import type { KeyResolver } from './auth/key-resolver.js';
import type { TokenVerifier } from './auth/token-verifier.js';
import { trustProxySetting } from './config.js';
import { protectedResourceFor } from './domain/protected-resource.js';
import { ROUTES, type PoolName, type RouteDef, type UpstreamName } from './domain/route-table.js';
import { closeRefusedBodies } from './routes/refused-body.js';
import { createServiceProxy } from './routes/service-proxy.js';
import { securityHeaders } from './routes/security-headers.js';
import { ADMIT_HANDOFF, createAdmitStage } from './stages/admit.js';
import { AUTHENTICATE_HANDOFF, createAuthenticateStage } from './stages/authenticate.js';
import { AUTHORIZE_BUDGET_HANDOFF, createAuthorizeBudgetStage, DEFAULT_AUTHORIZE_IN_FLIGHT } from './stages/authorize-budget.js';
import { CORS_HANDOFF, createCorsStage } from './stages/cors.js';
import { createDeprecationStage, DEPRECATION_HANDOFF } from './stages/deprecation.js';
import { createErasureStage, ERASURE_HANDOFF } from './stages/erasure.js';
import { chain, createExchange, namedStage, type GatewayLimiter, type NamedStage } from './stages/exchange.js';
import { createFailOpen, createGatewayCounters } from './stages/fail-open.js';
import { createFailedAuthBudgetStage, FAILED_AUTH_BUDGET_HANDOFF } from './stages/failed-auth-budget.js';
import { createForwardStage, FORWARD_HANDOFF } from './stages/forward.js';
import { createInFlightStage, DEFAULT_IN_FLIGHT, IN_FLIGHT_HANDOFF } from './stages/in-flight.js';
import { createMcpHandshakeStage, MCP_HANDSHAKE_HANDOFF } from './stages/mcp-handshake.js';
import { createResolveStage, RESOLVE_HANDOFF } from './stages/resolve.js';
import { createUnroutedStage, UNROUTED_HANDOFF } from './stages/unrouted.js';

export type { UpstreamName };

export interface GatewayDeps {
  logger: Logger;
  metrics: Metrics;
  publicBaseUrl: string;
  trustProxy: string;
  /** The IPv6 prefix length per-address limits count as one client (default 64). */
  ipv6LimitPrefix?: number;
  upstreams: Record<UpstreamName, string>;
  upstreamTimeoutMs: number;
  /** The mcp service's answer deadline, above its tool deadline (default: upstreamTimeoutMs). */
  mcpTimeoutMs?: number;
  /** A client pausing this long while sending a body gets 408 (default 10 s). */
  clientBodyTimeoutMs?: number;
  /** A body not received in full this long after the gateway began reading it gets 408 (default 15 s). */
  bodyDeadlineMs?: number;
  /** Requests one caller may have open at once: per principal (default 8), per address without credentials (default 4). */
  inFlight?: { perPrincipal: number; perAddress: number };
  /** Requests to the authorization pages in flight at once, and the size of their own pool to identity (default 32). */
  authorizeInFlight?: number;
  /** Connections each service's shared pool holds at most (default 256); tests make it small. */
  upstreamSockets?: number;
  sign: InternalSigner;
  resolveKey: KeyResolver;
  verifyToken: TokenVerifier;
  /** Tells this replica's grant status that a grant is revoked (a person's erasure); without it the status expires on its own. */
  revokedGrant?: (grant: string) => void;
  /**
   * `failedAuth` counts wrong credentials per client IP; past it the gateway
   * answers 429 without asking identity. `mcpHandshake` counts MCP handshakes
   * (domain/mcp-handshake.ts) apart from the caller's minute, per principal
   * or client IP; without it they count as ordinary requests.
   */
  limiters: { principal: GatewayLimiter; anonymous: GatewayLimiter; failedAuth: FailureLimiter; mcpHandshake?: GatewayLimiter };
  /** Serves the documents (service document, OpenAPI, llms.txt, portal…). */
  docs: RequestHandler;
  /** For /readyz; without it the gateway is ready while it runs (neighbours are dependency health, not readiness). */
  ready?: () => Promise<unknown>;
  deprecations?: readonly Deprecation[];
  routes?: readonly RouteDef[];
}

const noop = () => undefined;
const HEALTH_PATH = /^\/(?:healthz|readyz)\/?$/i;

/**
 * The gateway's stages, in the order a request meets them. Each file under
 * stages/ says what its stage decides; a new rule is a new stage here.
 */
export function createStages(deps: GatewayDeps): NamedStage[] {
  const { logger, publicBaseUrl, limiters } = deps;
  const clientBodyTimeoutMs = deps.clientBodyTimeoutMs ?? 10_000;
  const body = { maxBytes: BOUNDS.bodyMaxBytes, idleMs: clientBodyTimeoutMs, deadlineMs: deps.bodyDeadlineMs ?? DEFAULT_BODY_DEADLINE_MS };
  const { rejections, upstreamErrors, limiterErrors } = createGatewayCounters(deps.metrics);
  const failOpen = createFailOpen(limiterErrors);
  const authorizeInFlight = deps.authorizeInFlight ?? DEFAULT_AUTHORIZE_IN_FLIGHT;
  const proxy = (service: UpstreamName, maxSockets?: number) =>
    createServiceProxy({
      service,
      target: deps.upstreams[service],
      timeoutMs: service === 'mcp' ? (deps.mcpTimeoutMs ?? deps.upstreamTimeoutMs) : deps.upstreamTimeoutMs,
      clientBodyTimeoutMs,
      logger,
      upstreamErrors,
      maxSockets,
    });
  const proxies = {
    ...(Object.fromEntries(Object.keys(deps.upstreams).map((service) => [service, proxy(service as UpstreamName, deps.upstreamSockets)])) as Record<UpstreamName, RequestHandler>),
    // No larger than its budget, so an admitted request never waits for a socket.
    authorize: proxy('identity', authorizeInFlight),
  } satisfies Record<UpstreamName | PoolName, RequestHandler>;
  return [
    namedStage('resolve', RESOLVE_HANDOFF, createResolveStage({ routes: deps.routes ?? ROUTES, publicBaseUrl })),
    namedStage('cors', CORS_HANDOFF, createCorsStage()),
    namedStage('failed-auth-budget', FAILED_AUTH_BUDGET_HANDOFF, createFailedAuthBudgetStage({ limiter: limiters.failedAuth, failOpen, rejections })),
    namedStage('authenticate', AUTHENTICATE_HANDOFF, createAuthenticateStage({ resolveKey: deps.resolveKey, verifyToken: deps.verifyToken, logger })),
    namedStage('in-flight', IN_FLIGHT_HANDOFF, createInFlightStage({ ...DEFAULT_IN_FLIGHT, ...deps.inFlight, rejections })),
    namedStage('mcp-handshake', MCP_HANDSHAKE_HANDOFF, createMcpHandshakeStage({ limiter: limiters.mcpHandshake, body })),
    namedStage('admit', ADMIT_HANDOFF, createAdmitStage({ limiters, failOpen, rejections })),
    namedStage('authorize-budget', AUTHORIZE_BUDGET_HANDOFF, createAuthorizeBudgetStage({ limit: authorizeInFlight, rejections })),
    namedStage('unrouted', UNROUTED_HANDOFF, createUnroutedStage()),
    namedStage('deprecation', DEPRECATION_HANDOFF, createDeprecationStage({ deprecations: deps.deprecations ?? DEPRECATIONS, publicBaseUrl })),
    namedStage('erasure', ERASURE_HANDOFF, createErasureStage({ revokedGrant: deps.revokedGrant, forgetKey: deps.resolveKey.forget })),
    namedStage('forward', FORWARD_HANDOFF, createForwardStage({ sign: deps.sign, publicBaseUrl, proxies, body })),
  ];
}

export function createApp(deps: GatewayDeps): Express {
  const { logger, metrics, publicBaseUrl } = deps;
  const env = { publicBaseUrl };
  const handle = chain(createStages(deps));
  // Until resolve names the resource addressed, the REST API's.
  const api = protectedResourceFor(publicBaseUrl, false, false);
  // A refusal, thrown or rejected, goes to the error handler; a request the
  // stages settle in one tick makes no promise.
  const gateway: RequestHandler = (req, res, next) => {
    let settled: void | Promise<void>;
    try {
      settled = handle(createExchange(req, res, next, api, deps.ipv6LimitPrefix));
    } catch (err) {
      return next(err);
    }
    if (settled) void settled.catch(next);
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxySetting(deps.trustProxy));
  const headers = securityHeaders(
    {
      // Documents are self-contained; inline styles are the portal's only extra.
      contentSecurityPolicy: { directives: { 'default-src': ["'self'"], 'style-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:'] } },
      crossOriginResourcePolicy: { policy: 'cross-origin' },
    },
    { 'API-Version': API_VERSION },
  );
  // The request timer shares the context's `finish` listener.
  const context = requestContext(logger, { finished: metrics.timing.finished });
  const health = healthRoutes({ ready: deps.ready });
  // Headers, request context and metrics run for every request in one
  // middleware, and the health router only for its two paths: each layer
  // express walks through costs a few microseconds per request.
  app.use((req, res, next) => {
    headers(req, res, noop);
    context(req, res, noop);
    // What the health router would match (case-insensitive, trailing slash allowed); it passes the rest on.
    if (HEALTH_PATH.test(req.path)) return health(req, res, (err?: unknown) => (err ? next(err) : gateway(req, res, next)));
    gateway(req, res, next);
  });
  app.use(deps.docs);
  app.use(notFoundHandler(env));
  app.use(closeRefusedBodies());
  app.use(errorHandler(logger, env));
  return app;
}

/** The gateway's /metrics lives on its own port, which is never published. */
export { createAdminApp };
