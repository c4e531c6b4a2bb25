// Credentials through the gateway: an API key and the access tokens of its
// client id and secret all authenticate the same principal.
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let system: System;
let api: supertest.Agent;
let base: string;

beforeAll(async () => {
  system = await startSystem({ name: 'identity-credentials', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '1000' } });
  base = system.baseUrl;
  api = supertest.agent(base);
});
afterAll(async () => {
  await system?.close();
});

type Creds = Awaited<ReturnType<typeof createKey>>;

function basic(id: string, secret: string) {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

describe('API keys through the gateway', () => {
  let creds: Creds;
  beforeAll(async () => {
    creds = await createKey(base, { name: 'System Agent', scopes: ['catalog:read', 'requests:read'] });
  });

  it('authenticates GET /v1/me with Authorization: Bearer <API key>', async () => {
    const res = await api.get('/v1/me').set('Authorization', `Bearer ${creds.api_key}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: creds.client_id,
      name: 'System Agent',
      scopes: ['catalog:read', 'requests:read'],
      mode: 'sandbox',
      tier: 'free',
      via: 'api_key',
    });
  });

  it('authenticates GET /v1/me with X-API-Key', async () => {
    const res = await api.get('/v1/me').set('X-API-Key', creds.api_key);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: creds.client_id, via: 'api_key' });
  });

  it('answers 401 with the resource metadata challenge for an unknown key', async () => {
    const res = await api.get('/v1/me').set('Authorization', `Bearer msa_test_${'Z'.repeat(40)}`);

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
    expect(res.headers['www-authenticate']).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource"`);
  });

  it('answers 401 on GET /v1/me without credentials', async () => {
    const res = await api.get('/v1/me');

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer resource_metadata="/);
  });
});

describe('access tokens through the gateway', () => {
  let creds: Creds;
  beforeAll(async () => {
    creds = await createKey(base, { name: 'OAuth Agent', mode: 'live' });
  });

  const forms = {
    'a JSON body': () =>
      api.post('/oauth/token').send({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret }),
    'a form body': () =>
      api
        .post('/oauth/token')
        .type('form')
        .send({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret }),
    'HTTP Basic': () =>
      api
        .post('/oauth/token')
        .set('Authorization', basic(creds.client_id, creds.client_secret))
        .type('form')
        .send({ grant_type: 'client_credentials' }),
  };

  it.each(Object.keys(forms) as (keyof typeof forms)[])(
    'issues a token for client credentials in %s that GET /v1/me accepts as oauth',
    async (form) => {
      const issued = await forms[form]();

      expect(issued.status).toBe(200);
      expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(issued.headers['cache-control']).toBe('no-store');
      const res = await api.get('/v1/me').set('Authorization', `Bearer ${issued.body.access_token}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: creds.client_id,
        name: 'OAuth Agent',
        scopes: ['catalog:read', 'shops:read', 'requests:write', 'requests:read'],
        mode: 'live',
        tier: 'free',
        via: 'oauth',
      });
    },
  );

  it('narrows a token to the asked scopes, and the gateway refuses what it lacks with 403 insufficient_scope', async () => {
    const issued = await api
      .post('/oauth/token')
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'catalog:read', client_id: creds.client_id, client_secret: creds.client_secret });
    expect(issued.body.scope).toBe('catalog:read');

    const res = await api.post('/v1/shop-requests').set('Authorization', `Bearer ${issued.body.access_token}`).send({});

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
    const principal = await api.get('/v1/me').set('Authorization', `Bearer ${issued.body.access_token}`);
    expect(principal.body.scopes).toEqual(['catalog:read']);
  });

  it('answers 400 invalid_scope for a scope beyond the granted ones', async () => {
    const narrow = await createKey(base, { scopes: ['catalog:read'] });

    const res = await api
      .post('/oauth/token')
      .send({ grant_type: 'client_credentials', scope: 'requests:write', client_id: narrow.client_id, client_secret: narrow.client_secret });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_scope');
  });

  it('answers 401 invalid_client with the Basic challenge for a wrong secret', async () => {
    const res = await api
      .post('/oauth/token')
      .set('Authorization', basic(creds.client_id, 'msa_secret_wrong'))
      .type('form')
      .send({ grant_type: 'client_credentials' });

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_client');
    expect(res.headers['www-authenticate']).toMatch(/^Basic realm="msa"/);
  });

  it('answers 400 unsupported_grant_type for another grant', async () => {
    const res = await api.post('/oauth/token').type('form').send({ grant_type: 'password', username: 'x', password: 'y' });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unsupported_grant_type');
  });

  it('issues a sandbox token on /sandbox/oauth/token that keeps every call on the sandbox', async () => {
    const issued = await api
      .post('/sandbox/oauth/token')
      .send({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret });

    const res = await api.get('/v1/me').set('Authorization', `Bearer ${issued.body.access_token}`);

    expect(issued.status).toBe(200);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: creds.client_id, mode: 'sandbox', via: 'oauth' });
  });
});

describe('client registration through the gateway', () => {
  it('registers a client whose API key and token both authenticate it', async () => {
    const reg = await api
      .post('/oauth/register')
      .send({ client_name: 'Registered', contacts: ['dev@example.org'], scope: 'catalog:read shops:read' });
    expect(reg.status).toBe(201);

    const issued = await api
      .post('/oauth/token')
      .set('Authorization', basic(reg.body.client_id, reg.body.client_secret))
      .type('form')
      .send({ grant_type: 'client_credentials' });
    const byKey = await api.get('/v1/me').set('Authorization', `Bearer ${reg.body.api_key}`);
    const byToken = await api.get('/v1/me').set('Authorization', `Bearer ${issued.body.access_token}`);

    expect(byKey.body).toMatchObject({ id: reg.body.client_id, scopes: ['catalog:read', 'shops:read'], via: 'api_key' });
    expect(byToken.body).toMatchObject({ id: reg.body.client_id, scopes: ['catalog:read', 'shops:read'], via: 'oauth' });
  });

  it('answers 400 invalid_client_metadata without contacts', async () => {
    const res = await api.post('/oauth/register').send({ client_name: 'No Contacts' });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_client_metadata');
  });
});

describe('discovery through the gateway', () => {
  it('serves the authorization server metadata with the gateway as issuer', async () => {
    const res = await api.get('/.well-known/oauth-authorization-server');

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ issuer: base, token_endpoint: `${base}/oauth/token`, jwks_uri: `${base}/.well-known/jwks.json` });
  });

  it.each(['/sandbox/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server/sandbox'])(
    'serves the sandbox metadata at %s',
    async (path) => {
      const res = await api.get(path);

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ issuer: `${base}/sandbox`, token_endpoint: `${base}/sandbox/oauth/token` });
    },
  );

  it('serves the protected resource metadata naming the authorization server', async () => {
    const res = await api.get('/.well-known/oauth-protected-resource');

    expect(res.body).toMatchObject({ resource: base, authorization_servers: [base] });
  });

  it('serves the JWKS with the signing key', async () => {
    const res = await api.get('/.well-known/jwks.json');

    expect(res.body.keys).toEqual([expect.objectContaining({ kid: 'test-key-1', alg: 'ES256', kty: 'EC', crv: 'P-256' })]);
  });
});
