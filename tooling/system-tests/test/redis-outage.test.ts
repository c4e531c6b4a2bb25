// The system on a Redis of this test's own, stopped and started again under
// the running services: while it is away every answer is a retryable 503 in
// the envelope (never a 500), the outage is logged as a few JSON lines, and
// once it is back the same requests succeed. Ends with identity itself down.
import { randomBytes } from 'node:crypto';
import { startOwnRedisServer, type OwnRedisServer } from '@msa/test-kit';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let own: OwnRedisServer;
let system: System;
let api: supertest.Agent;

beforeAll(async () => {
  own = await startOwnRedisServer();
  system = await startSystem({
    name: 'redis-outage',
    env: { REDIS_URL: own.url },
    gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '1000' },
    captureLogs: true,
  });
  api = supertest.agent(system.baseUrl);
});
afterAll(async () => {
  await own?.start();
  await system?.close();
  await own?.stop();
});

const keyBody = { name: 'Outage Agent', email: 'agent@example.org' };
const shopRequest = {
  shop_name: 'TSV Musterstadt',
  organization: { name: 'TSV Musterstadt e.V.', type: 'verein', contact_name: 'Erika Muster', email: 'erika@example.org' },
  design_service: true,
};

/** Sends until the answer is no longer a 503; Redis clients reconnect with a back-off of up to 2 s. */
async function onceBack(send: () => Promise<supertest.Response>): Promise<supertest.Response> {
  for (let i = 0; i < 60; i++) {
    const res = await send();
    if (res.status !== 503) return res;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('still 503 after 15 s');
}

/** Waits until `service`'s connection `connection` has logged the outage. */
async function noticedBy(service: string, connection: string) {
  for (let i = 0; i < 100; i++) {
    if (system.logs.some((l) => l.msg === 'redis connection error' && l.service === service && l.connection === connection)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function expectRetryable(res: supertest.Response) {
  expect(res.status).toBe(503);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error).toMatchObject({ code: 'service_unavailable', status: 503, docs: `${system.baseUrl}/developers#service_unavailable` });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(10);
}

describe('a Redis outage under the running system', () => {
  it('answers 503 with Retry-After while Redis is down, and 201 once it is back', async () => {
    await own.stop();

    const during = await api.post('/v1/keys').send(keyBody);
    // A gateway that spends a leased count asks Redis nothing for this request, so the
    // outage lasts until its connection has noticed it on its own (a reconnect refused).
    await noticedBy('gateway', 'rate-limits');
    await own.start();
    const after = await onceBack(() => api.post('/v1/keys').send(keyBody));

    expectRetryable(during);
    expect(after.status).toBe(201);
  });

  it('answers 503, not 500, for an API key while identity cannot reach Redis', async () => {
    await own.stop();

    const during = await api.get('/v1/me').set('X-API-Key', `msa_live_${randomBytes(24).toString('hex')}`);
    await own.start();

    expectRetryable(during);
  });

  it('answers 503 for a shop request while the requests service cannot reach Redis, and 201 after', async () => {
    const key = await createKey(system.baseUrl, { name: 'Outage Shop', scopes: ['requests:write', 'requests:read'] });
    expect((await api.get('/v1/me').set('X-API-Key', key.api_key)).status).toBe(200); // the gateway now knows the key
    await own.stop();

    const during = await api.post('/v1/shop-requests').set('X-API-Key', key.api_key).set('Idempotency-Key', 'outage-1').send(shopRequest);
    await own.start();
    const after = await onceBack(() => api.post('/v1/shop-requests').set('X-API-Key', key.api_key).set('Idempotency-Key', 'outage-1').send(shopRequest));

    expectRetryable(during);
    expect(after.status).toBe(201);
  });

  it('logs the outage as a few JSON lines per connection, not one per reconnect attempt', async () => {
    const errors = system.logs.filter((l) => l.msg === 'redis connection error');
    const perConnection = new Map<string, number>();
    for (const l of errors) perConnection.set(`${l.service}/${String(l.connection)}`, (perConnection.get(`${l.service}/${String(l.connection)}`) ?? 0) + 1);

    expect([...perConnection.keys()]).toEqual(expect.arrayContaining(['gateway/rate-limits', 'identity/store', 'requests/store']));
    // Three outages, each at most a line per 10 s per connection, plus a line when it recovers.
    for (const count of perConnection.values()) expect(count).toBeLessThanOrEqual(6);
    expect(system.logs.some((l) => l.service === 'identity' && l.msg === 'redis connection restored')).toBe(true);
    expect(system.logs.filter((l) => l.msg === 'unhandled error')).toEqual([]);
  });
});

describe('identity down', () => {
  it('answers 503 with Retry-After, not 500, for API keys and access tokens', async () => {
    const client = await createKey(system.baseUrl, { name: 'Token Agent' });
    const token = await api.post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
    expect(token.status).toBe(200);
    await system.services.identity!.close();

    const byKey = await api.get('/v1/me').set('X-API-Key', `msa_test_${randomBytes(24).toString('hex')}`);
    const byToken = await api.get('/v1/me').set('Authorization', `Bearer ${token.body.access_token}`);

    expectRetryable(byKey);
    expectRetryable(byToken);
    expect(byKey.headers['ratelimit-policy']).toBe('"anonymous-per-minute";q=1000;w=60');
  });
});
