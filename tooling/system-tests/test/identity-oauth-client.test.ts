// A real OAuth 2.0 client library (openid-client v6) against the gateway:
// discovery, dynamic registration and the client-credentials grant.
import * as client from 'openid-client';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let system: System;
let base: string;

beforeAll(async () => {
  system = await startSystem({ name: 'identity-oauth-client', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '1000' } });
  base = system.baseUrl;
});
afterAll(async () => {
  await system?.close();
});

// Plain http on loopback; production runs behind https.
const options = { algorithm: 'oauth2' as const, execute: [client.allowInsecureRequests] };

describe('openid-client', () => {
  it('discovers the server and gets a token with client_secret_basic that GET /v1/me accepts', async () => {
    const creds = await createKey(base, { name: 'Library Agent' });

    const config = await client.discovery(new URL(base), creds.client_id, undefined, client.ClientSecretBasic(creds.client_secret), options);
    const tokens = await client.clientCredentialsGrant(config);

    expect(config.serverMetadata().token_endpoint).toBe(`${base}/oauth/token`);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    const me = await supertest(base).get('/v1/me').set('Authorization', `Bearer ${tokens.access_token}`);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: creds.client_id, name: 'Library Agent', via: 'oauth' });
  });

  it('gets a narrowed token with client_secret_post', async () => {
    const creds = await createKey(base);

    const config = await client.discovery(new URL(base), creds.client_id, creds.client_secret, client.ClientSecretPost(creds.client_secret), options);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'shops:read' });

    expect(tokens.scope).toBe('shops:read');
  });

  it('discovers the sandbox by its issuer and gets a sandbox token there', async () => {
    const creds = await createKey(base, { mode: 'live' });

    const config = await client.discovery(new URL(`${base}/sandbox`), creds.client_id, undefined, client.ClientSecretBasic(creds.client_secret), options);
    const tokens = await client.clientCredentialsGrant(config);

    expect(config.serverMetadata().issuer).toBe(`${base}/sandbox`);
    const me = await supertest(base).get('/v1/me').set('Authorization', `Bearer ${tokens.access_token}`);
    expect(me.body).toMatchObject({ id: creds.client_id, mode: 'sandbox', via: 'oauth' });
  });

  it('registers a client dynamically and uses it', async () => {
    const config = await client.dynamicClientRegistration(
      new URL(base),
      { client_name: 'Dynamic Agent', contacts: ['dev@example.org'], grant_types: ['client_credentials'], scope: 'catalog:read' },
      undefined,
      options,
    );
    const tokens = await client.clientCredentialsGrant(config);

    const me = await supertest(base).get('/v1/me').set('Authorization', `Bearer ${tokens.access_token}`);
    expect(me.body).toMatchObject({ id: config.clientMetadata().client_id, name: 'Dynamic Agent', scopes: ['catalog:read'], via: 'oauth' });
  });
});
