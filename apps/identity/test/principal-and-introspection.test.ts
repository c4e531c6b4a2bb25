import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, buildKeyRequest, buildPrincipal, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity('identity-me');
});
afterAll(async () => {
  await h.close();
});

describe('GET /v1/me', () => {
  it('returns the principal the gateway authenticated', async () => {
    const principal = buildPrincipal({ name: 'Me Agent', scopes: ['catalog:read'], via: 'oauth', mode: 'live' });

    const res = await h.api.get('/v1/me').set(h.as({ principal }));

    expect(res.status).toBe(200);
    expect(res.body).toEqual(principal);
    expect(res.headers['cache-control']).toContain('no-store');
  });

  it('answers 401 unauthorized with the resource metadata challenge without credentials', async () => {
    const res = await h.api.get('/v1/me').set(h.as({ principal: null, sandbox: true }));

    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(res.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${TEST_BASE_URL}/sandbox/.well-known/oauth-protected-resource"`,
    );
  });
});

describe('POST /internal/introspect', () => {
  it('names the principal of a known key', async () => {
    const key = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest({ name: 'Intro' }));

    const res = await h.api.post('/internal/introspect').set(h.as()).send({ api_key: key.body.api_key });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      active: true,
      principal: { id: key.body.client_id, name: 'Intro', scopes: key.body.scopes, mode: 'sandbox', tier: 'free' },
    });
  });

  it.each([
    ['an unknown key of the right shape', `msa_test_${'A'.repeat(40)}`],
    ['a value of another shape', 'hello'],
  ])('answers active false for %s', async (_label, apiKey) => {
    const res = await h.api.post('/internal/introspect').set(h.as()).send({ api_key: apiKey });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
  });

  it('does not accept a client secret as an API key', async () => {
    const key = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest());

    const res = await h.api.post('/internal/introspect').set(h.as()).send({ api_key: key.body.client_secret });

    expect(res.body).toEqual({ active: false });
  });

  it('answers 400 for a body without api_key', async () => {
    const res = await h.api.post('/internal/introspect').set(h.as()).send({});

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('answers 401 to a caller without internal authentication', async () => {
    const res = await h.api.post('/internal/introspect').send({ api_key: 'msa_test_x' });

    expect(res.status).toBe(401);
  });
});
