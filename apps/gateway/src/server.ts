import { createIdentityClient, type CallContext, type IdentityClient } from '@msa/contracts';
import { createDocsRouter, resolveLegalInfo } from '@msa/docs';
import {
  closeServer,
  createInternalSigner,
  createLogger,
  createDependencyHealth,
  createMetrics,
  redisTopologyOf,
  listen,
  type Logger,
  type RedisClient,
  type RunningService,
} from '@msa/service-kit';
import { createRedis, pingRedis } from '@msa/service-kit/redis';
import { createFailureLimiter } from '@msa/service-kit/limits';
import { createAdminApp, createApp, type GatewayDeps, type UpstreamName } from './app.js';
import { createKeyResolver } from './auth/key-resolver.js';
import { createTokenVerifier } from './auth/token-verifier.js';
import { createGrantStatus } from './auth/grant-status.js';
import type { GatewayConfig } from './config.js';
import { capConnectionsPerAddress } from './connection-cap.js';
import { createLeasedWindowLimiter } from './limits/leased-window.js';

export interface GatewayServiceDeps {
  logger?: Logger;
}

export interface RunningGateway extends RunningService {
  adminUrl: string;
}

/** How long a starting gateway waits for its Redis connection before it serves with limits counted in memory. */
const STARTUP_REDIS_WAIT_MS = 2_000;

/** Resolves once `redis` is ready, or after `ms` whatever its state. */
function connectedWithin(redis: RedisClient, ms: number): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once('ready', done);
  });
}

async function upstreamReady(name: string, url: string): Promise<void> {
  const res = await fetch(new URL('/readyz', url), { signal: AbortSignal.timeout(2_000) });
  if (!res.ok) throw new Error(`${name} is not ready (${res.status})`);
}

function createLimiters(config: GatewayConfig, redis: RedisClient): GatewayDeps['limiters'] {
  const keyPrefix = `${config.REDIS_KEY_PREFIX}rl`;
  // Per minute, in Redis across replicas; in memory per replica while Redis is away.
  const limited = { redis, windowSeconds: 60, insurance: true };
  // Leased: a busy caller costs one Redis round trip per lease, not per request (limits/leased-window.ts).
  const leased = { redis, windowSeconds: 60 };
  return {
    principal: createLeasedWindowLimiter({ ...leased, keyPrefix: `${keyPrefix}:min`, policy: 'per-minute', points: config.RATE_LIMIT_PER_MINUTE }),
    anonymous: createLeasedWindowLimiter({ ...leased, keyPrefix: `${keyPrefix}:anon-min`, policy: 'anonymous-per-minute', points: config.RATE_LIMIT_ANON_PER_MINUTE }),
    mcpHandshake: createLeasedWindowLimiter({ ...leased, keyPrefix: `${keyPrefix}:mcp-hs`, policy: 'mcp-handshake', points: config.RATE_LIMIT_MCP_HANDSHAKE_PER_MINUTE }),
    failedAuth: createFailureLimiter({ ...limited, keyPrefix: `${keyPrefix}:auth-fail`, policy: 'failed-auth', points: config.RATE_LIMIT_FAILED_AUTH_PER_MINUTE }),
  };
}

function upstreamsOf(config: GatewayConfig): Record<UpstreamName, string> {
  return { catalog: config.CATALOG_URL, shops: config.SHOPS_URL, requests: config.REQUESTS_URL, identity: config.IDENTITY_URL, mcp: config.MCP_URL };
}

/** Access tokens verified here with identity's JWKS, and their grants' status as identity last said it. */
function createTokenAuth(config: GatewayConfig, identity: IdentityClient) {
  const systemCtx = (): CallContext => ({ principal: null, sandbox: false, ip: '127.0.0.1', request_id: 'gateway-jwks' });
  // A revoked grant's tokens pass for at most 5 s (shorter with a shorter key cache TTL); at once after an erasure here.
  const grantStatus = createGrantStatus({ identity, systemCtx, ttlMs: Math.min(config.KEY_CACHE_TTL_MS, 5_000) });
  const verifyToken = createTokenVerifier({
    fetchJwks: async () => {
      const res = await identity.raw.send('GET', '/.well-known/jwks.json', systemCtx());
      if (res.status !== 200) throw new Error(`JWKS answered ${res.status}`);
      return res.body as { keys: Array<Record<string, unknown>> };
    },
    issuers: [config.PUBLIC_BASE_URL, `${config.PUBLIC_BASE_URL}/sandbox`],
    grantActive: grantStatus,
  });
  return { verifyToken, grantStatus };
}

export async function startService(config: GatewayConfig, deps: GatewayServiceDeps = {}): Promise<RunningGateway> {
  const logger = deps.logger ?? createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const metrics = createMetrics('gateway');
  // The limiters lease their units (limits/leased-window.ts): a busy caller
  // costs one script per 25 requests, so commands rarely share a tick, and
  // auto-pipelining would wrap each alone in a pipeline of its own. While
  // Redis is away no command waits (no offline queue, a short timeout): the
  // limiters count in this replica's memory until it is back.
  const redis = createRedis(redisTopologyOf(config), 'api', {
    logger,
    label: 'rate-limits',
    enableOfflineQueue: false,
    commandTimeout: config.RATE_LIMIT_REDIS_TIMEOUT_MS,
  });
  const sign = createInternalSigner(config.INTERNAL_AUTH_SECRET);
  const identity = createIdentityClient({ baseUrl: config.IDENTITY_URL, sign, timeoutMs: 5_000 });
  const upstreams = upstreamsOf(config);
  const { verifyToken, grantStatus } = createTokenAuth(config, identity);
  const legal = resolveLegalInfo(config, { production: config.NODE_ENV === 'production' });
  // The pages still answer, saying what is missing; a start is not refused for an imprint.
  if (legal.unconfigured.length) logger.warn({ unconfigured: legal.unconfigured }, 'legal pages: operator details not configured');
  const app = createApp({
    logger,
    metrics,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    trustProxy: config.TRUST_PROXY,
    ipv6LimitPrefix: config.IPV6_LIMIT_PREFIX,
    upstreams,
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    mcpTimeoutMs: config.MCP_ANSWER_TIMEOUT_MS,
    clientBodyTimeoutMs: config.CLIENT_BODY_TIMEOUT_MS,
    bodyDeadlineMs: config.BODY_DEADLINE_MS,
    inFlight: { perPrincipal: config.IN_FLIGHT_PER_PRINCIPAL, perAddress: config.IN_FLIGHT_PER_ADDRESS },
    authorizeInFlight: config.AUTHORIZE_IN_FLIGHT,
    sign,
    resolveKey: createKeyResolver({ identity, ttlMs: config.KEY_CACHE_TTL_MS, staleMs: config.KEY_CACHE_STALE_MS }),
    verifyToken,
    revokedGrant: grantStatus.revoked,
    limiters: createLimiters(config, redis),
    docs: createDocsRouter({
      publicBaseUrl: config.PUBLIC_BASE_URL,
      legal,
      contentSignal: config.CONTENT_SIGNAL,
      ...(config.MCP_REGISTRY_AUTH ? { mcpRegistryAuth: config.MCP_REGISTRY_AUTH } : {}),
      ...(config.OPENAI_APPS_CHALLENGE ? { openaiAppsChallenge: config.OPENAI_APPS_CHALLENGE } : {}),
    }),
  });
  // Readiness is this process's alone (every route it serves can answer
  // something without Redis or any one upstream); how they answer is
  // dependency health: the admin port's /metrics and /dependencies.
  createDependencyHealth(metrics, {
    redis: () => pingRedis(redis),
    ...Object.fromEntries(Object.entries(upstreams).map(([name, url]) => [name, () => upstreamReady(name, url)])),
  });
  // Without an offline queue, requests before the connection is up count in
  // memory; beside a working Redis the first ones count across replicas too.
  await connectedWithin(redis, STARTUP_REDIS_WAIT_MS);
  const listenOptions = { host: config.BIND_ADDRESS, publicBaseUrl: config.PUBLIC_BASE_URL };
  // Node's own clocks: headers within HEADERS_TIMEOUT_MS; the whole request
  // as a backstop behind the body deadline, which answers first.
  const timeouts = {
    headersTimeoutMs: config.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: config.HEADERS_TIMEOUT_MS + config.BODY_DEADLINE_MS,
    keepAliveTimeoutMs: config.KEEP_ALIVE_TIMEOUT_MS,
  };
  const main = await listen(app, config.GATEWAY_PORT, { ...listenOptions, timeouts });
  capConnectionsPerAddress(main.server, {
    perAddress: config.CONNECTIONS_PER_ADDRESS,
    ipv6Prefix: config.IPV6_LIMIT_PREFIX,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    refused: metrics.counter('gateway_connections_refused_total', 'Connections refused past CONNECTIONS_PER_ADDRESS'),
  });
  const admin = await listen(createAdminApp(metrics, { publicBaseUrl: config.PUBLIC_BASE_URL, logger }), config.GATEWAY_ADMIN_PORT, listenOptions);
  return {
    url: main.url,
    port: main.port,
    adminUrl: admin.url,
    async close() {
      await Promise.all([closeServer(main.server), closeServer(admin.server)]);
      redis.disconnect();
    },
  };
}
