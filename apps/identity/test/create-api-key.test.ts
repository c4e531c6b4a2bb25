import { nextUtcMidnight } from '@msa/service-kit/limits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKeyRequest, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity('identity-keys');
});
afterAll(async () => {
  await h.close();
});

describe('POST /v1/keys', () => {
  it('creates sandbox credentials with every scope by default', async () => {
    const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest());

    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      api_key: expect.stringMatching(/^msa_test_[0-9A-Za-z]{32,}$/),
      client_id: expect.stringMatching(/^msa_client_[0-9A-Za-z]+$/),
      client_secret: expect.stringMatching(/^msa_secret_[0-9A-Za-z]{32,}$/),
      mode: 'sandbox',
      scopes: ['catalog:read', 'shops:read', 'requests:write', 'requests:read'],
      tier: 'free',
      limits: {
        requests_per_minute: 300,
        live_shop_requests_per_day: 5,
        sandbox_shop_requests_per_day: 200,
        access_token_lifetime_seconds: 3600,
        daily_limits_reset: '00:00 UTC',
      },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/),
    });
  });

  it('creates a live key with the scopes asked for', async () => {
    const res = await h.api
      .post('/v1/keys')
      .set(h.as({ ip: freshIp() }))
      .send(buildKeyRequest({ mode: 'live', scopes: ['shops:read', 'catalog:read'] }));

    expect(res.status).toBe(201);
    expect(res.body.api_key).toMatch(/^msa_live_/);
    expect(res.body).toMatchObject({ mode: 'live', scopes: ['catalog:read', 'shops:read'] });
    const check = await h.api.post('/internal/introspect').set(h.as()).send({ api_key: res.body.api_key });
    expect(check.body).toEqual({
      active: true,
      principal: { id: res.body.client_id, name: 'Test Agent', scopes: ['catalog:read', 'shops:read'], mode: 'live', tier: 'free' },
    });
  });

  it.each([
    ['a name shorter than two characters', { name: 'A' }, 'name'],
    ['a name longer than 80 characters', { name: 'x'.repeat(81) }, 'name'],
    ['a missing name', { name: undefined }, 'name'],
    ['an invalid e-mail', { email: 'not-an-email' }, 'email'],
    ['an unknown scope', { scopes: ['catalog:read', 'admin'] }, 'scopes.1'],
    ['an empty scope list', { scopes: [] }, 'scopes'],
    ['an unknown mode', { mode: 'production' }, 'mode'],
    ['an unknown field', { plan: 'pro' }, 'plan'],
  ])('answers 400 invalid_request for %s, naming the field', async (_label, overrides, field) => {
    const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest(overrides));

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(res.body.error.fields).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).set('Content-Type', 'application/json').send('{"name":');

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_json');
  });

  it('makes sandbox keys by default on the sandbox path', async () => {
    const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp(), sandbox: true })).send(buildKeyRequest());

    expect(res.status).toBe(201);
    expect(res.body.mode).toBe('sandbox');
  });

  it('refuses a live key on the sandbox path with a field problem on mode and a hint', async () => {
    const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp(), sandbox: true })).send(buildKeyRequest({ mode: 'live' }));

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.fields).toEqual([{ field: 'mode', message: expect.any(String) }]);
    expect(res.body.error.hint).toContain('http://api.test.local/v1/keys');
  });

  it('answers 401 without internal authentication', async () => {
    const res = await h.api.post('/v1/keys').send(buildKeyRequest());

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('answers 405 with Allow for other methods', async () => {
    const res = await h.api.delete('/v1/keys').set(h.as());

    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('POST');
  });
});

describe('credential creation quota', () => {
  it('refuses the 11th creation from one address in a UTC day with 429 and Retry-After to midnight', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) {
      const ok = await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest({ name: `Agent ${i}` }));
      expect(ok.status).toBe(201);
    }

    const res = await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest());

    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    const now = new Date();
    const toMidnight = (nextUtcMidnight(now).getTime() - now.getTime()) / 1000;
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - toMidnight)).toBeLessThan(120);
    expect(res.headers['ratelimit-policy']).toBe('"credentials-day";q=10;w=86400');
    expect(res.headers.ratelimit).toMatch(/^"credentials-day";r=0;t=\d+$/);
  });

  it('still serves another address after one reached its limit', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest());

    const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest());

    expect(res.status).toBe(201);
    expect(res.headers.ratelimit).toMatch(/^"credentials-day";r=9;t=\d+$/);
  });

  it('counts keys and client registrations together', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest());
    for (let i = 0; i < 5; i++) {
      await h.api.post('/oauth/register').set(h.as({ ip })).send({ client_name: 'Reg', contacts: ['dev@example.org'] });
    }

    const key = await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest());
    const registration = await h.api.post('/oauth/register').set(h.as({ ip })).send({ client_name: 'Reg', contacts: ['dev@example.org'] });

    expect(key.status).toBe(429);
    expect(registration.status).toBe(429);
    expect(registration.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('does not count refused requests', async () => {
    const ip = freshIp();
    for (let i = 0; i < 12; i++) await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest({ name: 'A' }));

    const res = await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest());

    expect(res.status).toBe(201);
    expect(res.headers.ratelimit).toMatch(/r=9;/);
  });
});

describe('Idempotency-Key on POST /v1/keys', () => {
  it('never hands a second caller behind the same address the first caller\'s secrets for the same key and body', async () => {
    const ip = freshIp();
    const first = await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'create-1').send(buildKeyRequest());

    const second = await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'create-1').send(buildKeyRequest());

    expect(first.status).toBe(201);
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('idempotency_key_reused');
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    const answer = JSON.stringify(second.body);
    for (const secret of [first.body.api_key, first.body.client_secret, first.body.client_id]) expect(answer).not.toContain(secret);
  });

  it('creates nothing and counts nothing for a repeat of a finished creation', async () => {
    const ip = freshIp();
    await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'create-3').send(buildKeyRequest());
    await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'create-3').send(buildKeyRequest());

    const next = await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest());

    expect(next.status).toBe(201);
    expect(next.headers.ratelimit).toMatch(/r=8;/);
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const ip = freshIp();
    await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'create-2').send(buildKeyRequest());

    const res = await h.api
      .post('/v1/keys')
      .set(h.as({ ip }))
      .set('Idempotency-Key', 'create-2')
      .send(buildKeyRequest({ name: 'Other Agent' }));

    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_reused');
  });

  it('keeps keys of different addresses apart', async () => {
    const a = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).set('Idempotency-Key', 'shared').send(buildKeyRequest());

    const b = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).set('Idempotency-Key', 'shared').send(buildKeyRequest());

    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.api_key).not.toBe(a.body.api_key);
  });
});
