// Two gateway replicas on one Redis: the per-minute limits hold across them.
// Each replica leases units of a caller's minute from Redis and spends them
// locally (limits/leased-window.ts), so together they never let a caller
// through more often than the limit, and reach it early by at most what the
// other replica leased and the caller did not spend there: one lease, at most
// a tenth of the limit (docs/decisions/performance-budget.md).
import type http from 'node:http';
import { closeServer } from '@msa/service-kit';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createLeasedWindowLimiter, MAX_LEASE } from '../src/limits/leased-window.js';
import { closedPortUrl, startServer, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

const ANONYMOUS_LIMIT = 60;
/** What the spec's limit may be reached early by, with two replicas: one lease of the other. */
const TOLERANCE = Math.floor(ANONYMOUS_LIMIT / 10) - 1;

describe('two gateway replicas on one Redis', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let catalog: { url: string; server: http.Server };

  beforeAll(async () => {
    tr = await createTestRedis('gateway-replicas');
    // Connected first: until then each replica counts in its own memory, as while Redis is away.
    await tr.redis.ping();
    identity = await startTestIdentity(tr);
    catalog = await startServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"products":[]}');
    });
  });

  afterAll(async () => {
    await closeServer(catalog?.server);
    await identity?.close();
    await tr?.cleanup();
  });

  async function replicas() {
    const nowhere = await closedPortUrl();
    const upstreams = { catalog: catalog.url, shops: nowhere, requests: nowhere, identity: identity.service.url, mcp: nowhere };
    // The same key prefix: both count the same callers' minutes in Redis, each with limiters of its own.
    // The address is X-Forwarded-For's, so each test is a caller of its own.
    const replica = () => createApp(testGatewayDeps(tr, identity, upstreams, {}, { trustProxy: 'loopback' }));
    return [replica(), replica()] as const;
  }

  it('lets one address through at most 60 times a minute however its requests are spread, and at least 60 less one lease', async () => {
    const [a, b] = await replicas();
    const statuses: number[] = [];
    // Two to A, one to B, as an uneven balancer would; more than the limit in all.
    for (let i = 0; i < 90; i++) statuses.push((await request(i % 3 === 2 ? b : a).get('/v1/products').set('X-Forwarded-For', '198.51.100.7')).status);

    const allowed = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(allowed).toBeLessThanOrEqual(ANONYMOUS_LIMIT);
    expect(allowed).toBeGreaterThanOrEqual(ANONYMOUS_LIMIT - TOLERANCE);
  });

  it('still holds the limit when the caller moves to the other replica after one request', async () => {
    const [a, b] = await replicas();
    const first = await request(a).get('/v1/products').set('X-Forwarded-For', '198.51.100.8');
    const rest: number[] = [];
    for (let i = 0; i < 70; i++) rest.push((await request(b).get('/v1/products').set('X-Forwarded-For', '198.51.100.8')).status);

    const allowed = [first.status, ...rest].filter((s) => s === 200).length;
    expect(allowed).toBeLessThanOrEqual(ANONYMOUS_LIMIT);
    expect(allowed).toBeGreaterThanOrEqual(ANONYMOUS_LIMIT - TOLERANCE);
    expect(rest.at(-1)).toBe(429);
  });
});

describe('the leased per-minute limiter', () => {
  let tr: TestRedis;

  beforeAll(async () => {
    tr = await createTestRedis('gateway-leased-window');
    await tr.redis.ping();
  });

  afterAll(async () => {
    await tr?.cleanup();
  });

  const limiter = (name: string, points: number) => createLeasedWindowLimiter({ redis: tr.redis, keyPrefix: `${tr.prefix}${name}`, policy: 'per-minute', points, windowSeconds: 60 });

  it('counts exactly on one replica: what is left goes down by one per request, and the request past the limit is refused', async () => {
    const one = limiter('exact', 300);
    const remaining: number[] = [];
    for (let i = 0; i < 300; i++) {
      const r = await one.consume('p:caller');
      expect(r.allowed).toBe(true);
      remaining.push(r.state.remaining);
    }
    const past = await one.consume('p:caller');

    expect(remaining).toEqual(Array.from({ length: 300 }, (_, i) => 299 - i));
    expect(past.allowed).toBe(false);
    expect(past.state.remaining).toBe(0);
    expect(past.state.resetSeconds).toBeGreaterThan(0);
    expect(past.state.resetSeconds).toBeLessThanOrEqual(60);
  });

  it('refuses a caller past the limit without asking Redis again until the minute ends', async () => {
    const one = limiter('past', 5);
    for (let i = 0; i < 5; i++) await one.consume('p:past');
    expect((await one.consume('p:past')).allowed).toBe(false);
    // Were Redis asked, the emptied count would let the next request through.
    await tr.redis.del(`${tr.prefix}past:p:past`);

    const again = await one.consume('p:past');

    expect(again).toMatchObject({ allowed: false, state: { remaining: 0 } });
  });

  it('refuses a batch larger than what is left whole, and spends nothing of it', async () => {
    const one = limiter('batch', 10);
    for (let i = 0; i < 7; i++) await one.consume('p:batch');

    const batch = await one.consume('p:batch', 5);
    const single = await one.consume('p:batch');

    expect(batch).toMatchObject({ allowed: false, state: { remaining: 3 } });
    expect(single).toMatchObject({ allowed: true, state: { remaining: 2 } });
  });

  it('asks Redis once per lease for a busy caller, not once per request', async () => {
    const busy = limiter('busy', 1_000_000);
    for (let i = 0; i < 200; i++) await busy.consume('p:busy');

    // What Redis counted is what was leased: the 200 spent and at most one lease not spent yet.
    const taken = Number(await tr.redis.get(`${tr.prefix}busy:p:busy`));
    expect(taken).toBeGreaterThanOrEqual(200);
    expect(taken).toBeLessThan(200 + MAX_LEASE);
    expect(taken % MAX_LEASE).toBe(0);
  });

  it('shares one lease among concurrent requests of a caller instead of asking Redis for each', async () => {
    const busy = limiter('concurrent', 1_000_000);

    const results = await Promise.all(Array.from({ length: MAX_LEASE }, () => busy.consume('p:concurrent')));

    expect(results.every((r) => r.allowed)).toBe(true);
    expect(Number(await tr.redis.get(`${tr.prefix}concurrent:p:concurrent`))).toBe(MAX_LEASE);
  });
});
