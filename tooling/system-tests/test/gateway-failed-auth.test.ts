// Wrong credentials are counted per client address in the gateway; past the
// budget the answer is 429 and identity is not asked. Every answer under /v1
// carries RateLimit headers, 401 and 403 included. Addresses come from
// X-Forwarded-For (TRUST_PROXY=loopback), so each test is a caller of its own.
import { randomBytes } from 'node:crypto';
import { LIMITS } from '@msa/contracts';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

const BUDGET = LIMITS.failedAuthPerIpPerMinute;

let system: System;
let api: supertest.Agent;
let addressCounter = 0;

beforeAll(async () => {
  system = await startSystem({
    name: 'gateway-failed-auth',
    captureLogs: true,
    gatewayEnv: { TRUST_PROXY: 'loopback', RATE_LIMIT_ANON_PER_MINUTE: '1000' },
  });
  api = supertest.agent(system.baseUrl);
});
afterAll(async () => {
  await system?.close();
});

const freshAddress = () => `198.51.100.${++addressCounter}`;
const wrongKey = () => `msa_live_${randomBytes(24).toString('hex')}`;
const forgedToken = () => `${randomBytes(12).toString('base64url')}.${randomBytes(12).toString('base64url')}.${randomBytes(12).toString('base64url')}`;

const introspections = () => system.logs.filter((l) => l.service === 'identity' && l.path === '/internal/introspect').length;
const settle = () => new Promise((r) => setTimeout(r, 100));

describe('failed authentication budget per address', () => {
  it(`refuses the ${BUDGET + 1}st wrong key from one address with 429 without asking identity`, async () => {
    const address = freshAddress();
    const before = introspections();
    const statuses: number[] = [];
    for (let i = 0; i < BUDGET; i++) {
      statuses.push((await api.get('/v1/products').set('X-Forwarded-For', address).set('X-API-Key', wrongKey())).status);
    }
    await settle();
    const asked = introspections() - before;

    const refused = await api.get('/v1/products').set('X-Forwarded-For', address).set('X-API-Key', wrongKey());
    await settle();

    expect(statuses).toEqual(Array(BUDGET).fill(401));
    expect(asked).toBe(BUDGET);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-policy']).toBe(`"failed-auth";q=${BUDGET};w=60`);
    expect(refused.headers.ratelimit).toMatch(/^"failed-auth";r=0;t=\d+$/);
    expect(introspections() - before).toBe(BUDGET);
  });

  it('refuses forged tokens and malformed credentials past the budget too', async () => {
    const address = freshAddress();
    for (let i = 0; i < BUDGET - 1; i++) await api.get('/v1/me').set('X-Forwarded-For', address).set('Authorization', `Bearer ${forgedToken()}`);
    const last = await api.get('/v1/me').set('X-Forwarded-For', address).set('Authorization', 'Basic dXNlcjpwYXNz');

    const refused = await api.get('/v1/me').set('X-Forwarded-For', address).set('Authorization', `Bearer ${forgedToken()}`);

    expect(last.status).toBe(401);
    expect(last.headers.ratelimit).toMatch(/^"failed-auth";r=0;/);
    expect(refused.status).toBe(429);
  });

  it("does not count one address's failures against a caller at another", async () => {
    const attacker = freshAddress();
    for (let i = 0; i <= BUDGET; i++) await api.get('/v1/me').set('X-Forwarded-For', attacker).set('X-API-Key', wrongKey());
    const key = await createKey(system.baseUrl, { name: 'Bystander' });

    const res = await api.get('/v1/me').set('X-Forwarded-For', freshAddress()).set('X-API-Key', key.api_key);

    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-policy']).toBe(`"per-minute";q=${LIMITS.ratePerMinuteWithCredentials};w=60`);
  });

  it('keeps serving a valid key it knows while its address is refused for wrong ones', async () => {
    const address = freshAddress();
    const key = await createKey(system.baseUrl, { name: 'Shared office' });
    expect((await api.get('/v1/me').set('X-Forwarded-For', address).set('X-API-Key', key.api_key)).status).toBe(200);
    for (let i = 0; i <= BUDGET; i++) await api.get('/v1/me').set('X-Forwarded-For', address).set('X-API-Key', wrongKey());

    const res = await api.get('/v1/me').set('X-Forwarded-For', address).set('X-API-Key', key.api_key);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'Shared office' });
  });

  it('keeps accepting a valid access token while its address is refused for wrong credentials', async () => {
    const address = freshAddress();
    const client = await createKey(system.baseUrl, { name: 'Token office' });
    const token = await api.post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
    const bearer = `Bearer ${token.body.access_token}`;
    expect((await api.get('/v1/me').set('X-Forwarded-For', address).set('Authorization', bearer)).status).toBe(200);
    for (let i = 0; i <= BUDGET; i++) await api.get('/v1/me').set('X-Forwarded-For', address).set('Authorization', `Bearer ${forgedToken()}`);

    const res = await api.get('/v1/me').set('X-Forwarded-For', address).set('Authorization', bearer);

    expect(res.status).toBe(200);
  });

  it('never counts successful authentications', async () => {
    const address = freshAddress();
    const key = await createKey(system.baseUrl, { name: 'Busy agent' });
    for (let i = 0; i < BUDGET + 5; i++) await api.get('/v1/pricing').set('X-Forwarded-For', address).set('X-API-Key', key.api_key);

    const wrong = await api.get('/v1/me').set('X-Forwarded-For', address).set('X-API-Key', wrongKey());

    expect(wrong.status).toBe(401);
    expect(wrong.headers.ratelimit).toBe(`"failed-auth";r=${BUDGET - 1};t=60`);
  });
});

describe('RateLimit headers on refusals under /v1', () => {
  it('shows the failed-auth policy on a 401 for a wrong key', async () => {
    const res = await api.get('/v1/me').set('X-Forwarded-For', freshAddress()).set('X-API-Key', wrongKey());

    expect(res.status).toBe(401);
    expect(res.headers['ratelimit-policy']).toBe(`"failed-auth";q=${BUDGET};w=60`);
    expect(res.headers.ratelimit).toMatch(new RegExp(`^"failed-auth";r=${BUDGET - 1};t=\\d+$`));
  });

  it('shows the anonymous per-minute policy on a 401 for missing credentials', async () => {
    const res = await api.post('/v1/shop-requests').set('X-Forwarded-For', freshAddress()).send({});

    expect(res.status).toBe(401);
    expect(res.headers['ratelimit-policy']).toBe('"anonymous-per-minute";q=1000;w=60');
    expect(res.headers.ratelimit).toMatch(/^"anonymous-per-minute";r=999;t=\d+$/);
  });

  it("shows the principal's per-minute policy on a 403 for a missing scope", async () => {
    const key = await createKey(system.baseUrl, { name: 'Reader', scopes: ['catalog:read'] });

    const res = await api.post('/v1/shop-requests').set('X-Forwarded-For', freshAddress()).set('X-API-Key', key.api_key).send({});

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    expect(res.headers['ratelimit-policy']).toBe(`"per-minute";q=${LIMITS.ratePerMinuteWithCredentials};w=60`);
    expect(res.headers.ratelimit).toMatch(/^"per-minute";r=\d+;t=\d+$/);
  });
});
