import http from 'node:http';
import { verifyInternalToken, createMetrics, listen, loadConfig, closeServer, type RunningService } from '@msa/service-kit';
import { createRedis } from '@msa/service-kit/redis';
import { createWindowLimiter } from '@msa/service-kit/limits';
import { CatalogEnv, startService as startCatalog } from '@msa/catalog';
import { buildContext, createTestRedis, TEST_INTERNAL_SECRET, testLogger, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdentityClient } from '@msa/contracts';
import { createAdminApp, createApp, type GatewayDeps } from '../src/app.js';
import { createKeyResolver } from '../src/auth/key-resolver.js';
import { BASE, closedPortUrl, startServer, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

interface Recorded {
  url: string;
  headers: http.IncomingHttpHeaders;
}

describe('gateway', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let catalog: RunningService;
  let recorder: { url: string; server: http.Server };
  let slow: { url: string; server: http.Server };
  const recorded: Recorded[] = [];
  let app: ReturnType<typeof createApp>;
  let deps: GatewayDeps;

  beforeAll(async () => {
    tr = await createTestRedis('gateway');
    identity = await startTestIdentity(tr);
    catalog = await startCatalog(
      loadConfig(CatalogEnv, { CATALOG_PORT: '0', CATALOG_ADMIN_PORT: '0', PUBLIC_BASE_URL: BASE, INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'silent' }),
      { logger: testLogger('catalog') },
    );
    recorder = await startServer((req, res) => {
      recorded.push({ url: req.url ?? '', headers: req.headers });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ generated_at: new Date().toISOString(), count: 0, shops: [] }));
    });
    slow = await startServer((_req, res) => {
      setTimeout(() => res.end('{}'), 3_000).unref();
    });
    deps = testGatewayDeps(
      tr,
      identity,
      { catalog: catalog.url, shops: recorder.url, requests: await closedPortUrl(), identity: slow.url, mcp: await closedPortUrl() },
      {},
      {
        upstreamTimeoutMs: 300,
        deprecations: [
          { method: 'GET', path: '/v1/pricing', deprecatedAt: '2026-01-01', sunset: '2027-01-01', notice: '/developers#deprecations' },
        ],
      },
    );
    app = createApp(deps);
  });

  /** Credentials from identity itself, as POST /v1/keys makes them. */
  async function createKey(body: { mode: 'live' | 'sandbox'; scopes: string[] }) {
    const created = await identity.client.raw.send('POST', '/v1/keys', buildContext({ ip: '198.51.100.76' }), {
      body: { name: 'agent', email: 'agent@example.org', ...body },
    });
    expect(created.status).toBe(201);
    return created.body as { api_key: string; client_id: string; client_secret: string };
  }

  afterAll(async () => {
    await catalog?.close();
    recorder?.server.close();
    slow?.server.closeAllConnections();
    slow?.server.close();
    await identity?.close();
    await tr?.cleanup();
  });

  it('proxies a product search to the catalog with API-Version and rate-limit headers', async () => {
    const res = await request(app).get('/v1/products?q=hoodie');

    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThan(0);
    expect(res.body.products.every((p: { title: string; type?: string; tags?: string[]; description?: string }) =>
      JSON.stringify(p).toLowerCase().includes('hoodie'))).toBe(true);
    expect(res.headers['api-version']).toBe('1');
    expect(res.headers['ratelimit-policy']).toBe('"anonymous-per-minute";q=60;w=60');
    expect(res.headers.ratelimit).toMatch(/^"anonymous-per-minute";r=\d+;t=\d+$/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers.vary).toContain('Authorization, X-API-Key');
  });

  it('serves a product under /sandbox too', async () => {
    const list = await request(app).get('/v1/products?limit=1');
    const handle = list.body.products[0].handle;

    const res = await request(app).get(`/sandbox/v1/products/${handle}`);

    expect(res.status).toBe(200);
    expect(res.body.handle).toBe(handle);
  });

  it('keeps the caller request id', async () => {
    const res = await request(app).get('/v1/pricing').set('X-Request-Id', 'agent-run-42');

    expect(res.headers['x-request-id']).toBe('agent-run-42');
  });

  it('answers an unknown route with the 404 envelope, never HTML', async () => {
    const res = await request(app).get('/nope');

    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.error).toMatchObject({ code: 'not_found', status: 404 });
    expect(res.body.error.docs).toBe(`${BASE}/developers#not_found`);
    expect(res.headers['ratelimit-policy']).toBe('"anonymous-per-minute";q=60;w=60');
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await request(app).delete('/v1/pricing');

    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.body.error.code).toBe('method_not_allowed');
    expect(res.headers.ratelimit).toMatch(/^"anonymous-per-minute";r=\d+;t=\d+$/);
  });

  it('replaces inbound internal headers with its own signed context and strips /sandbox', async () => {
    recorded.length = 0;

    const res = await request(app)
      .get('/sandbox/v1/shops?category=verein')
      .set('X-Internal-Auth', 'forged')
      .set('X-Msa-Sandbox', 'false')
      .set('X-Request-Id', 'trace-me');

    expect(res.status).toBe(200);
    const seen = recorded[0]!;
    expect(seen.url).toBe('/v1/shops?category=verein');
    expect(seen.headers['x-msa-sandbox']).toBeUndefined();
    const ctx = verifyInternalToken(TEST_INTERNAL_SECRET, 'shops', String(seen.headers['x-internal-auth']));
    expect(ctx).toMatchObject({ principal: null, sandbox: true });
    // The request id travels in its own header, not in the signed context.
    expect(seen.headers['x-request-id']).toBe('trace-me');
    expect(verifyInternalToken(TEST_INTERNAL_SECRET, 'catalog', String(seen.headers['x-internal-auth']))).toBeNull();
    expect(seen.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  });

  it('tells the service the /sandbox prefix it removed, and drops one a client sent', async () => {
    recorded.length = 0;

    await request(app).get('/sandbox/v1/shops').set('X-Forwarded-Prefix', '/elsewhere');
    await request(app).get('/v1/shops').set('X-Forwarded-Prefix', '/sandbox');

    expect(recorded.map((r) => r.headers['x-forwarded-prefix'])).toEqual(['/sandbox', undefined]);
  });

  it('answers 502 in the envelope when a service refuses connections', async () => {
    const res = await request(app).post('/mcp').set('content-type', 'application/json').send({ jsonrpc: '2.0', id: 1, method: 'ping' });

    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('upstream_unavailable');
  });

  it('answers 504 in the envelope when a service is too slow', async () => {
    const res = await request(app).post('/oauth/token').type('form').send({ grant_type: 'client_credentials' });

    expect(res.status).toBe(504);
    expect(res.body.error.code).toBe('upstream_timeout');
  });

  it('asks for credentials on a shop request, pointing at the protected-resource metadata', async () => {
    const res = await request(app).post('/v1/shop-requests').send({});

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);
  });

  it('refuses a malformed credential even on an open route', async () => {
    const res = await request(app).get('/v1/products').set('Authorization', 'Bearer not-a-key');

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('refuses an unknown API key with 401', async () => {
    const res = await request(app).get('/v1/products').set('X-API-Key', `msa_test_${'x'.repeat(32)}`);

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('adds Deprecation, Sunset and Link to a deprecated operation only', async () => {
    const deprecated = await request(app).get('/v1/pricing');
    const current = await request(app).get('/v1/products?limit=1');

    expect(deprecated.headers.deprecation).toBe('true');
    expect(deprecated.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
    expect(deprecated.headers.link).toContain('rel="deprecation"');
    expect(current.headers.deprecation).toBeUndefined();
  });

  it('keeps /metrics off the public port and serves it on the admin app', async () => {
    const pub = await request(app).get('/metrics');
    const admin = await request(createAdminApp(deps.metrics)).get('/metrics');

    expect(pub.status).toBe(404);
    expect(admin.status).toBe(200);
    expect(admin.text).toContain('gateway_upstream_errors_total');
  });

  it('refuses the 61st anonymous request in a minute with 429 and Retry-After', async () => {
    const fresh = createApp({
      ...deps,
      metrics: createMetrics('gateway'),
      limiters: {
        ...deps.limiters,
        anonymous: createWindowLimiter({ redis: tr.redis, keyPrefix: `${tr.prefix}rl:fresh`, policy: 'anonymous-per-minute', points: 60, windowSeconds: 60 }),
      },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await request(fresh).get('/v1/pricing')).status);

    const res = await request(fresh).get('/v1/pricing');

    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(res.headers.ratelimit).toMatch(/r=0;/);
  });

  it('lets requests through when the rate limiter cannot reach Redis', async () => {
    const deadRedis = createRedis(await closedPortUrl().then((u) => u.replace('http', 'redis')), 'api', { lazyConnect: true, connectTimeout: 200, maxRetriesPerRequest: 0, retryStrategy: () => null, logger: testLogger() });
    deadRedis.on('error', () => undefined); // refused on purpose
    const unlimited = createApp({
      ...deps,
      metrics: createMetrics('gateway'),
      limiters: {
        ...deps.limiters,
        anonymous: createWindowLimiter({ redis: deadRedis, keyPrefix: 'x', policy: 'anonymous-per-minute', points: 60, windowSeconds: 60 }),
      },
    });

    const res = await request(unlimited).get('/v1/pricing');

    expect(res.status).toBe(200);
    deadRedis.disconnect();
  });

  it('lets a key resolved moments ago through without reading the failed-auth budget again', async () => {
    let introspections = 0;
    let budgetChecks = 0;
    const counting = {
      ...identity.client,
      introspect: (...args: Parameters<IdentityClient['introspect']>) => {
        introspections++;
        return identity.client.introspect(...args);
      },
    };
    const keyed = createApp({
      ...deps,
      metrics: createMetrics('gateway'),
      resolveKey: createKeyResolver({ identity: counting, ttlMs: 60_000 }),
      limiters: {
        ...deps.limiters,
        failedAuth: {
          ...deps.limiters.failedAuth,
          check: (key: string) => {
            budgetChecks++;
            return deps.limiters.failedAuth.check(key);
          },
        },
      },
    });
    const bearer = `Bearer ${(await createKey({ mode: 'live', scopes: ['catalog:read'] })).api_key}`;

    const first = await request(keyed).get('/v1/pricing').set('Authorization', bearer);
    const second = await request(keyed).get('/v1/pricing').set('Authorization', bearer);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers['ratelimit-policy']).toBe('"per-minute";q=300;w=60');
    expect(introspections).toBe(1);
    expect(budgetChecks).toBe(1);
  });

  it('authenticates a key identity issued, and sends one signed context for its requests with the request ids apart', async () => {
    const key = await createKey({ mode: 'sandbox', scopes: ['shops:read'] });
    recorded.length = 0;

    const first = await request(app).get('/v1/shops').set('Authorization', `Bearer ${key.api_key}`).set('X-Request-Id', 'first');
    const second = await request(app).get('/v1/shops').set('X-API-Key', key.api_key).set('X-Request-Id', 'second');

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers['ratelimit-policy']).toBe('"per-minute";q=300;w=60');
    const [one, two] = recorded;
    expect(two!.headers['x-internal-auth']).toBe(one!.headers['x-internal-auth']);
    expect([one!.headers['x-request-id'], two!.headers['x-request-id']]).toEqual(['first', 'second']);
    expect(one!.headers.authorization).toBeUndefined();
    expect(verifyInternalToken(TEST_INTERNAL_SECRET, 'shops', String(one!.headers['x-internal-auth']))).toMatchObject({
      principal: { id: key.client_id, mode: 'sandbox', via: 'api_key' },
      sandbox: true,
    });
  });

  it('verifies an access token identity issued, against its JWKS', async () => {
    const key = await createKey({ mode: 'live', scopes: ['shops:read'] });
    const issued = await identity.client.raw.send('POST', '/oauth/token', buildContext(), {
      body: { grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret },
    });
    const token = (issued.body as { access_token: string }).access_token;
    recorded.length = 0;

    const res = await request(app).get('/v1/shops').set('Authorization', `Bearer ${token}`);

    expect(res.status).toBe(200);
    expect(verifyInternalToken(TEST_INTERNAL_SECRET, 'shops', String(recorded[0]!.headers['x-internal-auth']))).toMatchObject({
      principal: { id: key.client_id, via: 'oauth' },
      sandbox: false,
    });
  });

  it('refuses a token for the MCP endpoint on the REST API, naming the resource to ask for', async () => {
    const key = await createKey({ mode: 'live', scopes: ['shops:read'] });
    const issued = await identity.client.raw.send('POST', '/oauth/token', buildContext(), {
      body: { grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret, resource: `${BASE}/mcp` },
    });

    const res = await request(app).get('/v1/shops').set('Authorization', `Bearer ${(issued.body as { access_token: string }).access_token}`);

    expect(res.status).toBe(401);
    expect(res.body.error.message).toContain(`resource=${BASE}`);
    expect(res.headers['ratelimit-policy']).toBe('"failed-auth";q=30;w=60');
  });

  it('serves health without touching upstreams', async () => {
    const res = await request(app).get('/healthz');

    expect(res.status).toBe(200);
  });
});

describe('gateway admin server', () => {
  it('listens on its own port', async () => {
    const metrics = createMetrics('gateway');
    const admin = await listen(createAdminApp(metrics), 0, '127.0.0.1');

    const res = await fetch(`${admin.url}/healthz`);

    expect(res.status).toBe(200);
    await closeServer(admin.server);
  });
});
