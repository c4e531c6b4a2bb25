import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, basicAuth, buildKeyRequest, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
let client: { client_id: string; client_secret: string; api_key: string };
let narrowClient: { client_id: string; client_secret: string };

beforeAll(async () => {
  h = await startIdentity('identity-token');
  const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest({ name: 'Token Agent', mode: 'live' }));
  client = res.body;
  const narrow = await h.api
    .post('/v1/keys')
    .set(h.as({ ip: freshIp() }))
    .send(buildKeyRequest({ scopes: ['catalog:read', 'requests:read'] }));
  narrowClient = narrow.body;
});
afterAll(async () => {
  await h.close();
});

async function verifyWithPublishedJwks(token: string, issuer = TEST_BASE_URL, audience = TEST_BASE_URL) {
  const jwks = await h.api.get('/.well-known/jwks.json').set(h.as());
  const { kid } = jwt.decode(token, { complete: true })!.header;
  const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === kid);
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  return jwt.verify(token, key, { algorithms: ['ES256'], issuer, audience }) as jwt.JwtPayload;
}

describe('POST /oauth/token', () => {
  it('issues a one-hour Bearer token for client credentials in a JSON body', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'catalog:read shops:read requests:write requests:read',
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.pragma).toBe('no-cache');
  });

  it('issues a token for a form-encoded body', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });

    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
  });

  it('issues a token for HTTP Basic client authentication', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .set('Authorization', basicAuth(client.client_id, client.client_secret))
      .type('form')
      .send({ grant_type: 'client_credentials' });

    expect(res.status).toBe(200);
  });

  it('signs an RFC 9068 at+jwt the published JWKS verifies, with the principal in its claims', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });

    const claims = await verifyWithPublishedJwks(res.body.access_token);

    expect(jwt.decode(res.body.access_token, { complete: true })!.header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'test-key-1' });
    expect(claims).toMatchObject({
      iss: TEST_BASE_URL,
      aud: TEST_BASE_URL,
      sub: client.client_id,
      client_id: client.client_id,
      scope: 'catalog:read shops:read requests:write requests:read',
      name: 'Token Agent',
      mode: 'live',
      tier: 'free',
      jti: expect.any(String),
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('issues a sandbox token with the sandbox issuer on the sandbox path', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as({ sandbox: true }))
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });

    const claims = await verifyWithPublishedJwks(res.body.access_token, `${TEST_BASE_URL}/sandbox`);

    expect(claims).toMatchObject({ mode: 'sandbox', aud: TEST_BASE_URL });
  });

  it.each([
    ['the MCP endpoint', '/mcp', {}],
    ['the REST API', '', {}],
    ['the sandbox MCP endpoint', '/sandbox/mcp', { sandbox: true }],
  ])('makes the RFC 8707 resource %s the audience', async (_label, path, ctx) => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as(ctx))
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, resource: `${TEST_BASE_URL}${path}` });

    expect(res.status).toBe(200);
    expect(jwt.decode(res.body.access_token)).toMatchObject({ aud: `${TEST_BASE_URL}${path}` });
  });

  it.each([
    ['another host', 'https://elsewhere.example.org/mcp'],
    ['a path that is no resource', `${TEST_BASE_URL}/v1/products`],
    ['two resources', [TEST_BASE_URL, `${TEST_BASE_URL}/mcp`]],
  ])('answers 400 invalid_target for %s', async (_label, resource) => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, resource });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_target', status: 400 });
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'resource' })]);
  });

  it('narrows the token to the requested scopes', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'shops:read catalog:read' });

    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('catalog:read shops:read');
    expect((jwt.decode(res.body.access_token) as jwt.JwtPayload).scope).toBe('catalog:read shops:read');
  });

  it('answers 400 invalid_scope for a scope beyond the granted ones', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({
        grant_type: 'client_credentials',
        client_id: narrowClient.client_id,
        client_secret: narrowClient.client_secret,
        scope: 'catalog:read requests:write',
      });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_scope', status: 400 });
    expect(res.body.error.message).toContain('requests:write');
  });

  it('answers 400 invalid_scope for a scope the API does not have', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'openid' });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_scope');
  });

  it('answers 400 unsupported_grant_type for another grant', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .type('form')
      .send({ grant_type: 'password', username: 'a', password: 'b' });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unsupported_grant_type');
  });

  it('answers 400 invalid_request when grant_type is missing', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ client_id: client.client_id, client_secret: client.client_secret });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.fields).toEqual([expect.objectContaining({ field: 'grant_type' })]);
  });

  it('answers 400 invalid_request for a parameter sent twice', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .type('form')
      .send(`grant_type=client_credentials&client_id=${client.client_id}&client_id=x&client_secret=${client.client_secret}`);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('answers 400 invalid_request when Basic and body credentials come together', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .set('Authorization', basicAuth(client.client_id, client.client_secret))
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('answers 401 invalid_client with a Basic challenge for a wrong secret sent by Basic', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .set('Authorization', basicAuth(client.client_id, `${client.client_secret}x`))
      .send({ grant_type: 'client_credentials' });

    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'invalid_client', status: 401 });
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm="msa"/);
  });

  it('answers 401 invalid_client with a Basic challenge for unreadable Basic credentials', async () => {
    const res = await h.api.post('/oauth/token').set(h.as()).set('Authorization', 'Basic !!!').send({ grant_type: 'client_credentials' });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm="msa"/);
  });

  it.each([
    ['a wrong secret in the body', { client_id: 'CLIENT', client_secret: 'wrong' }],
    ['an unknown client id', { client_id: 'msa_client_000000000000000000000000', client_secret: 'msa_secret_x' }],
    ['a malformed client id', { client_id: 'someone', client_secret: 'x' }],
    ['a client id without a secret', { client_id: 'msa_client_000000000000000000000000' }],
    ['no client authentication at all', {}],
  ])('answers 401 invalid_client without a Basic challenge for %s', async (_label, creds) => {
    const body: Record<string, string> = { grant_type: 'client_credentials', ...creds };
    if (body.client_id === 'CLIENT') body.client_id = narrowClient.client_id;

    const res = await h.api.post('/oauth/token').set(h.as()).send(body);

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_client');
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('answers 401 invalid_client for the API key used as a client secret', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.api_key });

    expect(res.status).toBe(401);
  });
});
