// The gateway's dependencies as its component tests build them: real Redis
// limiters under the test file's prefix, and credentials checked by the real
// identity service (its app on the same Redis, over HTTP), exactly as
// server.ts wires them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIdentityClient, type CallContext, type IdentityClient } from '@msa/contracts';
import { IdentityEnv, startService as startIdentity } from '@msa/identity';
import { createInternalSigner, createMetrics, loadConfig, type RunningService } from '@msa/service-kit';
import { createFailureLimiter } from '@msa/service-kit/limits';
import { createLeasedWindowLimiter } from '../src/limits/leased-window.js';
import { TEST_INTERNAL_SECRET, testEcKeyPair, testLogger, type TestRedis } from '@msa/test-kit';
import express from 'express';
import type { GatewayDeps, UpstreamName } from '../src/app.js';
import { createGrantStatus } from '../src/auth/grant-status.js';
import { createKeyResolver } from '../src/auth/key-resolver.js';
import { createTokenVerifier } from '../src/auth/token-verifier.js';

export const BASE = 'http://api.test.local';

export interface LimitPoints {
  principal?: number;
  anonymous?: number;
  failedAuth?: number;
  /** Adds the MCP handshake limiter when set. */
  mcpHandshake?: number;
}

export interface TestIdentity {
  service: RunningService;
  /** The client the gateway asks (introspection, JWKS, grant status). */
  client: IdentityClient;
  close(): Promise<void>;
}

/** The identity service on the test file's Redis, under a prefix of its own; `env` adds to its settings. */
export async function startTestIdentity(tr: TestRedis, env: Record<string, string> = {}): Promise<TestIdentity> {
  const config = loadConfig(IdentityEnv, {
    IDENTITY_PORT: '0',
    IDENTITY_ADMIN_PORT: '0',
    PUBLIC_BASE_URL: BASE,
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    REDIS_URL: tr.url,
    REDIS_KEY_PREFIX: `${tr.prefix}identity:`,
    QUEUE_PREFIX: `{${tr.prefix}q}`,
    TOKEN_SIGNING_KEY: testEcKeyPair().privateKeyPem,
    TOKEN_SIGNING_KID: 'gateway-test',
    LOG_LEVEL: 'silent',
    ...env,
  });
  const service = await startIdentity(config, { logger: testLogger('identity'), redis: tr.redis });
  const client = createIdentityClient({ baseUrl: service.url, sign: createInternalSigner(TEST_INTERNAL_SECRET), timeoutMs: 5_000 });
  return { service, client, close: () => service.close() };
}

/** The key resolver and token verifier of server.ts, against `identity`. */
export function credentialChecks(identity: IdentityClient, ttlMs = 30_000): Pick<GatewayDeps, 'resolveKey' | 'verifyToken'> {
  const systemCtx = (): CallContext => ({ principal: null, sandbox: false, ip: '127.0.0.1', request_id: 'gateway-test' });
  return {
    resolveKey: createKeyResolver({ identity, ttlMs }),
    verifyToken: createTokenVerifier({
      fetchJwks: async () => {
        const res = await identity.raw.send('GET', '/.well-known/jwks.json', systemCtx());
        if (res.status !== 200) throw new Error(`JWKS answered ${res.status}`);
        return res.body as { keys: Array<Record<string, unknown>> };
      },
      issuers: [BASE, `${BASE}/sandbox`],
      grantActive: createGrantStatus({ identity, systemCtx, ttlMs: 5_000 }),
    }),
  };
}

/** Deps with every upstream at `upstreams` (one URL for all, or one each); `overrides` win. */
export function testGatewayDeps(
  tr: TestRedis,
  identity: TestIdentity,
  upstreams: string | Record<UpstreamName, string>,
  points: LimitPoints = {},
  overrides: Partial<GatewayDeps> = {},
): GatewayDeps {
  const limiter = (name: string, policy: string, p: number) =>
    createLeasedWindowLimiter({ redis: tr.redis, keyPrefix: `${tr.prefix}rl:${name}`, policy, points: p, windowSeconds: 60 });
  return {
    logger: testLogger('gateway'),
    metrics: createMetrics('gateway'),
    publicBaseUrl: BASE,
    trustProxy: 'false',
    upstreams: typeof upstreams === 'string' ? { catalog: upstreams, shops: upstreams, requests: upstreams, identity: upstreams, mcp: upstreams } : upstreams,
    upstreamTimeoutMs: 2_000,
    sign: createInternalSigner(TEST_INTERNAL_SECRET),
    ...credentialChecks(identity.client),
    limiters: {
      principal: limiter('p', 'per-minute', points.principal ?? 300),
      anonymous: limiter('a', 'anonymous-per-minute', points.anonymous ?? 60),
      failedAuth: createFailureLimiter({ redis: tr.redis, keyPrefix: `${tr.prefix}rl:f`, policy: 'failed-auth', points: points.failedAuth ?? 30, windowSeconds: 60 }),
      ...(points.mcpHandshake ? { mcpHandshake: limiter('hs', 'mcp-handshake', points.mcpHandshake) } : {}),
    },
    docs: express.Router(),
    ready: async () => undefined,
    ...overrides,
  };
}

/** A plain HTTP server on a free loopback port: an upstream a test shapes itself. */
export function startServer(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  return new Promise((resolve) => {
    const server = http.createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

/** The URL of a loopback port nothing listens on (one just closed). */
export async function closedPortUrl(): Promise<string> {
  const { server, url } = await startServer(() => undefined);
  await new Promise((r) => server.close(r));
  return url;
}
