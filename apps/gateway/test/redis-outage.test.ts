// What the gateway does while Redis or identity is away: it stays ready,
// reports its neighbours on the admin port, limits in memory per replica,
// and lets a key it resolved recently through for a bounded time.
import http from 'node:http';
import { loadConfig } from '@msa/service-kit';
import { buildContext, createTestRedis, startOwnRedisServer, TEST_INTERNAL_SECRET, testLogger, type OwnRedisServer, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createKeyResolver } from '../src/auth/key-resolver.js';
import { GatewayEnv } from '../src/config.js';
import { startService, type RunningGateway } from '../src/server.js';
import { BASE, closedPortUrl, startServer, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForRedisUp(gateway: RunningGateway): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const detail = (await (await fetch(`${gateway.adminUrl}/dependencies`)).json()) as { dependencies: { redis: { up: boolean } } };
    if (detail.dependencies.redis.up) return;
    await pause(100);
  }
  throw new Error("the gateway's Redis connection did not come up");
}

/** A gateway from server.ts, as main.ts starts it, with every upstream at `upstream`. */
async function startGateway(redisUrl: string, upstream: string, env: Record<string, string> = {}): Promise<RunningGateway> {
  const config = loadConfig(GatewayEnv, {
    GATEWAY_PORT: '0',
    GATEWAY_ADMIN_PORT: '0',
    PUBLIC_BASE_URL: BASE,
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: `gateway-outage-${process.pid}-${Date.now()}:`,
    CATALOG_URL: upstream,
    SHOPS_URL: upstream,
    REQUESTS_URL: upstream,
    IDENTITY_URL: upstream,
    MCP_URL: upstream,
    LOG_LEVEL: 'silent',
    ...env,
  });
  return startService(config, { logger: testLogger('gateway') });
}

describe('gateway readiness', () => {
  let gateway: RunningGateway | undefined;
  let tr: TestRedis;

  beforeAll(async () => {
    tr = await createTestRedis('gateway-readiness');
  });

  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  afterAll(async () => {
    await tr?.cleanup();
  });

  it('answers /readyz 200 while its Redis and every upstream are unreachable, and reports each of them down on the admin port', async () => {
    const nowhere = await closedPortUrl();
    gateway = await startGateway(nowhere.replace('http', 'redis'), nowhere);

    const ready = await fetch(`${gateway.url}/readyz`);
    const detail = (await (await fetch(`${gateway.adminUrl}/dependencies`)).json()) as { status: string; dependencies: Record<string, { up: boolean; error?: string }> };
    const metrics = await (await fetch(`${gateway.adminUrl}/metrics`)).text();

    expect(ready.status).toBe(200);
    expect(detail.status).toBe('degraded');
    expect(Object.keys(detail.dependencies).sort()).toEqual(['catalog', 'identity', 'mcp', 'redis', 'requests', 'shops']);
    expect(Object.values(detail.dependencies).every((d) => !d.up && typeof d.error === 'string')).toBe(true);
    expect(metrics).toMatch(/^dependency_up\{dependency="redis",service="gateway"\} 0$/m);
    expect(metrics).toMatch(/^dependency_up\{dependency="catalog",service="gateway"\} 0$/m);
  });

  it('reports Redis up and an upstream that answers 503 on /readyz down, and stays ready', async () => {
    const notReady = await startServer((_req, res) => {
      res.statusCode = 503;
      res.end('{}');
    });
    try {
      gateway = await startGateway(tr.url, notReady.url);

      const ready = await fetch(`${gateway.url}/readyz`);
      const detail = (await (await fetch(`${gateway.adminUrl}/dependencies`)).json()) as { dependencies: Record<string, { up: boolean }> };
      const metrics = await (await fetch(`${gateway.adminUrl}/metrics`)).text();

      expect(ready.status).toBe(200);
      expect(detail.dependencies.redis?.up).toBe(true);
      expect(detail.dependencies.requests?.up).toBe(false);
      expect(metrics).toMatch(/^dependency_up\{dependency="redis",service="gateway"\} 1$/m);
      expect(metrics).toMatch(/^dependency_up\{dependency="requests",service="gateway"\} 0$/m);
    } finally {
      notReady.server.close();
    }
  });
});

describe('gateway rate limits while Redis is down', () => {
  let redis: OwnRedisServer;
  let upstream: { url: string; server: http.Server };
  let gateway: RunningGateway;

  beforeAll(async () => {
    redis = await startOwnRedisServer();
    upstream = await startServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"currency":"EUR"}');
    });
    gateway = await startGateway(redis.url, upstream.url, { RATE_LIMIT_ANON_PER_MINUTE: '3' });
  });

  afterAll(async () => {
    await gateway?.close();
    upstream?.server.close();
    await redis?.stop();
  });

  it("answers from this replica's memory once its Redis stopped, and still refuses the request past the minute's budget", async () => {
    // Until its connection is up the gateway counts in memory too; this request is counted in Redis.
    await waitForRedisUp(gateway);
    const before = await request(gateway.url).get('/v1/pricing');
    expect(before.headers.ratelimit).toMatch(/r=2;/);
    expect(before.status).toBe(200);
    await redis.stop();

    const during = [];
    for (let i = 0; i < 4; i++) during.push(await request(gateway.url).get('/v1/pricing'));

    expect(during.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(during[0]?.headers.ratelimit).toMatch(/^"anonymous-per-minute";r=2;t=\d+$/);
    expect(Number(during[3]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(during[3]?.body.error.code).toBe('rate_limited');
  });
});

describe('gateway key cache while identity is down', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let upstream: { url: string; server: http.Server };

  beforeAll(async () => {
    tr = await createTestRedis('gateway-stale-keys');
    identity = await startTestIdentity(tr);
    upstream = await startServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"currency":"EUR"}');
    });
  });

  afterAll(async () => {
    upstream?.server.close();
    await identity?.close().catch(() => undefined);
    await tr?.cleanup();
  });

  it('lets a key resolved before identity went away through within the stale bound, and refuses it with 503 once the bound passed', async () => {
    const created = await identity.client.raw.send('POST', '/v1/keys', buildContext({ ip: '198.51.100.77' }), {
      body: { name: 'agent', email: 'agent@example.org', mode: 'live', scopes: ['catalog:read'] },
    });
    expect(created.status).toBe(201);
    const bearer = `Bearer ${(created.body as { api_key: string }).api_key}`;
    const app = createApp(
      testGatewayDeps(tr, identity, upstream.url, {}, {
        resolveKey: createKeyResolver({ identity: identity.client, ttlMs: 1, staleMs: 1_500 }),
      }),
    );
    const first = await request(app).get('/v1/pricing').set('Authorization', bearer);
    await identity.close();
    await pause(5);

    const stale = await request(app).get('/v1/pricing').set('Authorization', bearer);
    await pause(1_600);
    const past = await request(app).get('/v1/pricing').set('Authorization', bearer);

    expect(first.status).toBe(200);
    expect(stale.status).toBe(200);
    expect(past.status).toBe(503);
    expect(past.body.error.code).toBe('service_unavailable');
    expect(Number(past.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});
