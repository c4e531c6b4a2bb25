import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity('identity-register');
});
afterAll(async () => {
  await h.close();
});

const buildRegistration = (overrides: Record<string, unknown> = {}) => ({
  client_name: 'Registered Agent',
  contacts: ['dev@example.org'],
  ...overrides,
});

describe('POST /oauth/register', () => {
  it('registers a sandbox client with every scope and the client_secret_basic method by default', async () => {
    const before = Math.floor(Date.now() / 1000);

    const res = await h.api.post('/oauth/register').set(h.as({ ip: freshIp() })).send(buildRegistration());

    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^msa_client_/),
      client_secret: expect.stringMatching(/^msa_secret_[0-9A-Za-z]{32,}$/),
      client_id_issued_at: expect.any(Number),
      client_secret_expires_at: 0,
      client_name: 'Registered Agent',
      contacts: ['dev@example.org'],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'catalog:read shops:read requests:write requests:read',
      api_key: expect.stringMatching(/^msa_test_[0-9A-Za-z]{32,}$/),
      mode: 'sandbox',
    });
    expect(res.body.client_id_issued_at).toBeGreaterThanOrEqual(before);
  });

  it('keeps the scope, mode and auth method asked for, and ignores metadata it does not use', async () => {
    const res = await h.api
      .post('/oauth/register')
      .set(h.as({ ip: freshIp() }))
      .send(
        buildRegistration({
          scope: 'shops:read catalog:read',
          mode: 'live',
          token_endpoint_auth_method: 'client_secret_post',
          grant_types: ['client_credentials'],
          redirect_uris: ['https://agent.example.org/cb'],
        }),
      );

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ scope: 'catalog:read shops:read', mode: 'live', token_endpoint_auth_method: 'client_secret_post' });
    expect(res.body.api_key).toMatch(/^msa_live_/);
  });

  it('makes one principal: the API key and the client credentials are the same identity', async () => {
    const reg = await h.api.post('/oauth/register').set(h.as({ ip: freshIp() })).send(buildRegistration({ scope: 'catalog:read' }));

    const introspected = await h.api.post('/internal/introspect').set(h.as()).send({ api_key: reg.body.api_key });
    const token = await h.api
      .post('/oauth/token')
      .set(h.as())
      .set('Authorization', basicAuth(reg.body.client_id, reg.body.client_secret))
      .send({ grant_type: 'client_credentials' });

    expect(introspected.body.principal).toMatchObject({ id: reg.body.client_id, scopes: ['catalog:read'], name: 'Registered Agent' });
    expect(token.status).toBe(200);
    expect(token.body.scope).toBe('catalog:read');
  });

  it.each([
    ['a missing client_name', { client_name: undefined }, 'client_name'],
    ['no contacts', { contacts: [] }, 'contacts'],
    ['a contact that is not an e-mail', { contacts: ['not-mail'] }, 'contacts.0'],
    ['the authorization code grant without redirect URIs', { grant_types: ['authorization_code'] }, 'redirect_uris'],
    ['a grant type this API does not have', { grant_types: ['password'] }, 'grant_types.0'],
    ['an unknown scope', { scope: 'catalog:read admin' }, 'scope'],
    ['an unsupported auth method', { token_endpoint_auth_method: 'private_key_jwt' }, 'token_endpoint_auth_method'],
  ])('answers 400 invalid_client_metadata for %s', async (_label, overrides, field) => {
    const res = await h.api.post('/oauth/register').set(h.as({ ip: freshIp() })).send(buildRegistration(overrides));

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_client_metadata', status: 400 });
    expect(res.body.error.fields).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('refuses a live client on the sandbox path', async () => {
    const res = await h.api.post('/oauth/register').set(h.as({ ip: freshIp(), sandbox: true })).send(buildRegistration({ mode: 'live' }));

    expect(res.status).toBe(400);
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'mode' })]);
  });
});
