import { isIP } from 'node:net';
import {
  INTERNAL_HEADERS,
  INTERNAL_AUTH_HEADER,
  API_VERSION,
  DEPRECATIONS,
  ServiceCallError,
  type CallContext,
  type Deprecation,
  type InternalSigner,
  type Principal,
} from '@msa/contracts';
import {
  appError,
  createAdminApp,
  errorHandler,
  healthRoutes,
  notFoundHandler,
  requestContext,
  sendError,
  serviceUnavailableError,
  type AppError,
  type Logger,
  type Metrics,
} from '@msa/service-kit';
import { throttledLog } from '@msa/service-kit/redis';
import {
  rateLimitedError,
  setRateLimitHeaders,
  type FailureLimiter,
  type WindowLimiter,
} from '@msa/service-kit/limits';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { extractCredential } from './auth/credentials.js';
import type { KeyResolver } from './auth/key-resolver.js';
import { InvalidTokenError, type TokenVerifier } from './auth/token-verifier.js';
import { trustProxySetting } from './config.js';
import { createDeprecationLookup } from './domain/deprecation.js';
import { createRouteResolver, ROUTES, type RouteDef, type UpstreamName } from './domain/route-table.js';

export type { UpstreamName };
import { protectedResourceFor, type ProtectedResource } from './domain/protected-resource.js';
import { splitSandbox } from './domain/sandbox-path.js';
import { HANDSHAKE_PEEK_MAX_BYTES, isMcpHandshake } from './domain/mcp-handshake.js';
import { peekJsonBody } from './routes/peek-body.js';
import { createServiceProxy } from './routes/proxy.js';
import { securityHeaders } from './routes/security-headers.js';


export interface GatewayDeps {
  logger: Logger;
  metrics: Metrics;
  publicBaseUrl: string;
  trustProxy: string;
  upstreams: Record<UpstreamName, string>;
  upstreamTimeoutMs: number;
  /** A client pausing this long while sending a body gets 408 (default 10 s). */
  clientBodyTimeoutMs?: number;
  sign: InternalSigner;
  resolveKey: KeyResolver;
  verifyToken: TokenVerifier;
  /** `failedAuth` counts wrong credentials per client IP; past it the gateway answers 429 without asking identity. */
  /**
   * `mcpHandshake` counts MCP handshakes (domain/mcp-handshake.ts) apart from
   * the caller's minute, per principal or client IP; without it they count
   * as ordinary requests.
   */
  limiters: { principal: WindowLimiter; anonymous: WindowLimiter; failedAuth: FailureLimiter; mcpHandshake?: WindowLimiter };
  /** Serves the documents (service document, OpenAPI, llms.txt, portal…). */
  docs: RequestHandler;
  ready: () => Promise<unknown>;
  deprecations?: readonly Deprecation[];
  routes?: readonly RouteDef[];
}

const noop = () => undefined;
const HEALTH_PATH = /^\/(?:healthz|readyz)\/?$/i;

/** How a request that matches no route is authenticated: credentials used when given. */
const UNROUTED: RouteDef = { operation: 'unrouted', method: '*', path: '*', target: 'docs', auth: 'open' };

/** Identity gave no usable answer (down, too slow, or failing itself): worth a retry, not a 500. */
function isIdentityUnavailable(err: unknown): boolean {
  if (err instanceof ServiceCallError) return err.status >= 500;
  // fetch reports a refused or reset connection as a TypeError, its deadline as a TimeoutError.
  return err instanceof TypeError || (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'));
}

function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

export function createApp(deps: GatewayDeps): Express {
  const { logger, metrics, publicBaseUrl } = deps;
  const env = { publicBaseUrl };
  const resolveRoute = createRouteResolver(deps.routes ?? ROUTES);
  const deprecation = createDeprecationLookup(deps.deprecations ?? DEPRECATIONS, publicBaseUrl);
  const rejections = metrics.counter('gateway_rate_limit_rejections_total', 'Requests refused by a rate limit', ['policy']);
  const upstreamErrors = metrics.counter('gateway_upstream_errors_total', 'Upstream failures by service and kind', ['service', 'kind']);
  const limiterErrors = metrics.counter('gateway_rate_limiter_errors_total', 'Rate-limit checks skipped because Redis failed');
  const proxies = Object.fromEntries(
    (Object.keys(deps.upstreams) as UpstreamName[]).map((service) => [
      service,
      createServiceProxy({
        service,
        target: deps.upstreams[service],
        timeoutMs: deps.upstreamTimeoutMs,
        clientBodyTimeoutMs: deps.clientBodyTimeoutMs ?? 10_000,
        publicBaseUrl,
        logger,
        upstreamErrors,
      }),
    ]),
  ) as Record<UpstreamName, RequestHandler>;
  const unauthorized = (resource: ProtectedResource, message: string, invalidToken: boolean) =>
    appError('unauthorized', message, {
      headers: {
        'WWW-Authenticate': `Bearer resource_metadata="${resource.metadataUrl}"${invalidToken ? ', error="invalid_token"' : ''}`,
      },
    });

  const identityWarning = throttledLog(logger, 'warn', 'credentials cannot be checked: identity unavailable');
  function identityUnavailable(err: unknown): AppError {
    identityWarning({ err });
    return serviceUnavailableError('Credentials cannot be checked right now; retry after the seconds in Retry-After.');
  }

  /**
   * The principal behind the request's credentials, or null without any.
   * Wrong credentials count against the caller's address; past that budget
   * the answer is 429 before identity is asked. Credentials the gateway can
   * check alone (an access token, a key it resolved recently) still pass,
   * so a valid caller is not punished for others' failures at its address.
   */
  async function authenticate(
    req: Request,
    res: Response,
    route: RouteDef,
    resource: ProtectedResource,
    ctx: Omit<CallContext, 'principal' | 'sandbox'>,
  ): Promise<Principal | null> {
    if (route.auth === 'none') return null;
    const credential = extractCredential(req.headers);
    if (!credential) {
      if (route.auth === 'required') {
        throw unauthorized(resource, 'This operation needs credentials. Create free ones with POST /v1/keys.', false);
      }
      return null;
    }
    if (credential.kind === 'api_key') {
      // The failed-auth budget only decides what happens to credentials that
      // fail; a key resolved within the TTL cannot, so it skips that Redis
      // round trip (one of the two a request paid).
      const known = deps.resolveKey.fresh?.(credential.value);
      if (known) return known;
    }
    const address = `ip:${ctx.ip}`;
    const budget = await unlessLimiterDown(req, () => deps.limiters.failedAuth.check(address));
    const blocked = budget !== undefined && !budget.allowed;
    let principal: Principal | null = null;
    let reason = 'The API key is unknown.';
    try {
      if (credential.kind === 'malformed') reason = credential.reason;
      else if (credential.kind === 'api_key') {
        principal = await deps.resolveKey(credential.value, { ...ctx, principal: null, sandbox: false }, { cachedOnly: blocked });
      } else {
        principal = await deps.verifyToken(credential.value, { audiences: resource.audiences, knownKeysOnly: blocked });
      }
    } catch (err) {
      if (err instanceof InvalidTokenError) reason = err.message;
      // A token fails otherwise only when the JWKS cannot be fetched.
      else if (credential.kind === 'token' || isIdentityUnavailable(err)) throw identityUnavailable(err);
      else throw err;
    }
    if (principal) return principal;
    if (blocked) {
      setRateLimitHeaders(res, budget.state);
      rejections.inc({ policy: deps.limiters.failedAuth.policy });
      throw rateLimitedError(
        budget.state,
        `More than ${deps.limiters.failedAuth.points} failed authentications in a minute from this address.`,
        'Check the credential you send (Authorization: Bearer <API_KEY or access token>), then wait for Retry-After seconds.',
      );
    }
    const after = await unlessLimiterDown(req, () => deps.limiters.failedAuth.fail(address));
    if (after) setRateLimitHeaders(res, after.state);
    throw unauthorized(resource, reason, true);
  }

  function requireScope(route: RouteDef, resource: ProtectedResource, principal: Principal | null) {
    if (!route.scope || !principal || principal.scopes.includes(route.scope)) return;
    throw appError('insufficient_scope', `These credentials lack the scope "${route.scope}" that ${route.operation} needs.`, {
      headers: {
        'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${route.scope}", resource_metadata="${resource.metadataUrl}"`,
      },
    });
  }

  let lastLimiterWarning = 0;
  /** Runs a limiter call; an unavailable limiter must not take the API down with it, so its failure lets the request through. */
  async function unlessLimiterDown<T>(req: Request, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (err) {
      limiterErrors.inc();
      if (Date.now() - lastLimiterWarning > 10_000) {
        lastLimiterWarning = Date.now();
        req.log.warn({ err }, 'rate limiter unavailable; requests pass unlimited');
      }
      return undefined;
    }
  }

  async function limit(req: Request, res: Response, principal: Principal | null, ip: string, handshake = false) {
    const handshakes = handshake ? deps.limiters.mcpHandshake : undefined;
    const limiter = handshakes ?? (principal ? deps.limiters.principal : deps.limiters.anonymous);
    const result = await unlessLimiterDown(req, () => limiter.consume(principal ? `p:${principal.id}` : `ip:${ip}`));
    if (!result) return;
    setRateLimitHeaders(res, result.state);
    if (!result.allowed) {
      rejections.inc({ policy: limiter.policy });
      throw rateLimitedError(
        result.state,
        handshakes
          ? `More than ${limiter.points} MCP handshakes (initialize, notifications/initialized, server/discover) in a minute ${principal ? 'with these credentials' : 'from this address'}.`
          : principal
            ? `More than ${limiter.points} requests in a minute with these credentials.`
            : `More than ${limiter.points} requests in a minute from this address without credentials.`,
        principal || handshakes ? undefined : 'Wait for Retry-After seconds, or send credentials (POST /v1/keys) for 300 requests per minute.',
      );
    }
  }

  /**
   * Authenticates, counts and checks the scope, in that order, so every
   * answer carries RateLimit headers, 401 and 403 included: wrong credentials
   * show the failed-auth policy that will refuse them, a caller without
   * credentials (or while identity is away) the anonymous minute, a known
   * principal its own minute.
   */
  async function admit(
    req: Request,
    res: Response,
    route: RouteDef,
    resource: ProtectedResource,
    ctx: Omit<CallContext, 'principal' | 'sandbox'>,
    handshake = false,
  ): Promise<Principal | null> {
    let principal: Principal | null;
    try {
      principal = await authenticate(req, res, route, resource, ctx);
    } catch (err) {
      if (!res.hasHeader('RateLimit-Policy')) await limit(req, res, null, ctx.ip);
      throw err;
    }
    await limit(req, res, principal, ctx.ip, handshake);
    requireScope(route, resource, principal);
    return principal;
  }

  const gateway: RequestHandler = async (req, res, next) => {
    const { sandbox: sandboxPath, path } = splitSandbox(req.path);
    const resolution = resolveRoute(req.method, path);
    if (resolution.kind !== 'route') {
      // Misses count against the limit too (and carry its headers), so probing
      // unknown paths costs the same as calling real ones.
      await admit(req, res, UNROUTED, protectedResourceFor(publicBaseUrl, sandboxPath, false), {
        ip: clientIp(req),
        request_id: req.id,
        traceparent: req.traceparent,
      });
    }
    if (resolution.kind === 'not_found') {
      return sendError(res, env, 'not_found', `No resource at ${req.method} ${req.path}.`);
    }
    if (resolution.kind === 'method_not_allowed') {
      const allow = [...resolution.allowed, ...(resolution.allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
      res.setHeader('Allow', allow);
      if (req.method === 'OPTIONS') return void res.status(204).end();
      return sendError(res, env, 'method_not_allowed', `${req.method} is not allowed on ${path}.`, { headers: { Allow: allow } });
    }
    const route = resolution.route;

    for (const h of INTERNAL_HEADERS) delete req.headers[h];
    const ip = clientIp(req);
    const base = { ip, request_id: req.id, traceparent: req.traceparent };
    // Only POST /mcp bodies are read here, and only small JSON ones; see domain/mcp-handshake.ts.
    const handshake =
      deps.limiters.mcpHandshake !== undefined &&
      route.target === 'mcp' &&
      req.method === 'POST' &&
      isMcpHandshake(await peekJsonBody(req, HANDSHAKE_PEEK_MAX_BYTES, deps.clientBodyTimeoutMs ?? 10_000));
    // The resource the client addressed decides which token audiences fit, whatever mode the principal turns out to have.
    const resource = protectedResourceFor(publicBaseUrl, sandboxPath, route.target === 'mcp');
    const principal = await admit(req, res, route, resource, base, handshake);

    const dep = deprecation(req.method === 'HEAD' ? 'GET' : req.method, path);
    if (dep) for (const [k, v] of Object.entries(dep)) res.setHeader(k, v);

    // A sandbox key makes every path sandbox; a live key on /sandbox stays on the sandbox.
    const sandbox = sandboxPath || principal?.mode === 'sandbox';
    // `sandbox` cannot tell a sandbox key on /mcp from /sandbox/mcp; the mcp
    // service names the resource the caller addressed in its challenges.
    const forwardedPrefix = sandboxPath && req.path.startsWith('/sandbox') ? '/sandbox' : undefined;
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    req.url = path + query;

    if (route.target === 'docs') {
      res.locals.sandbox = sandbox;
      res.locals.principal = principal;
      return next();
    }

    const ctx: CallContext = { ...base, principal, sandbox };
    if (route.auth !== 'none') {
      // Credentials stop here; services get the verified principal instead.
      delete req.headers.authorization;
      delete req.headers['x-api-key'];
    }
    req.headers[INTERNAL_AUTH_HEADER] = deps.sign(route.target, ctx);
    req.headers['x-request-id'] = req.id;
    req.headers.traceparent = req.traceparent;
    req.headers['x-forwarded-host'] = req.headers.host ?? new URL(publicBaseUrl).host;
    req.headers['x-forwarded-proto'] = req.protocol;
    req.headers['x-forwarded-for'] = ip;
    if (forwardedPrefix) req.headers['x-forwarded-prefix'] = forwardedPrefix;
    else delete req.headers['x-forwarded-prefix'];
    return proxies[route.target](req, res, next);
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
  const context = requestContext(logger);
  const health = healthRoutes({ ready: deps.ready });
  // Headers, request context and metrics run for every request in one
  // middleware, and the health router only for its two paths: each layer
  // express walks through costs a few microseconds per request.
  const serve: RequestHandler = (req, res, next) => void (gateway(req, res, next) as Promise<void>).catch(next);
  app.use((req, res, next) => {
    headers(req, res, noop);
    context(req, res, noop);
    metrics.http(req, res, noop);
    // What the health router would match (case-insensitive, trailing slash allowed); it passes the rest on.
    if (HEALTH_PATH.test(req.path)) return health(req, res, (err?: unknown) => (err ? next(err) : serve(req, res, next)));
    serve(req, res, next);
  });
  app.use(deps.docs);
  app.use(notFoundHandler(env));
  app.use(errorHandler(logger, env));
  return app;
}

/** The gateway's /metrics lives on its own port, which is never published. */
export { createAdminApp };
