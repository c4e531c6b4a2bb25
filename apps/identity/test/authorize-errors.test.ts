// Where an authorization request that fails after the redirect check ends:
// back at the client's redirect URI only for a verified client; for anyone
// else on our own error page, so this host never forwards a browser to a
// page an attacker registered (RFC 9700 §4.11.2).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';
import { authorizeQuery, pkce, serveClient, startConsent, startDocServer, type DocServer } from './authorize-support.js';

const EVIL = 'https://evil.example/cb';
const failures = [
  ['no PKCE challenge', { code_challenge: undefined }, 'invalid_request'],
  ['the plain PKCE method', { code_challenge_method: 'plain' }, 'invalid_request'],
  ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
  ['an unknown scope', { scope: 'catalog:read admin' }, 'invalid_scope'],
  ['a resource this API does not serve', { resource: 'https://other.example/api' }, 'invalid_target'],
] as const;

let h: IdentityHarness;
let verified: IdentityHarness;
let docs: DocServer;
let documentClient: string;
let attackerClient: string;

beforeAll(async () => {
  h = await startIdentity('authorize-errors');
  verified = await startIdentity('authorize-errors-verified', { verifiedClientHosts: ['127.0.0.1'] });
  docs = await startDocServer();
  documentClient = serveClient(docs, '/client.json');
  // Anyone may register a public client, with a redirect URI of their own.
  const reg = await h.api.post('/oauth/register').set(h.as({ ip: freshIp() })).send({ client_name: 'Claude', redirect_uris: [EVIL] });
  attackerClient = reg.body.client_id as string;
});
afterAll(async () => {
  await docs?.close();
  await verified?.close();
  await h?.close();
});

describe('GET /oauth/authorize for a client that is not verified', () => {
  it.each(failures)('shows our error page for %s and never redirects to the attacker-registered URI', async (_label, overrides) => {
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(attackerClient, pkce().challenge, { redirect_uri: EVIL, ...overrides })).set(h.as({ ip: freshIp() }));

    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).not.toContain('evil.example');
    expect(res.text).toContain('nicht von uns geprüft');
  });

  it.each(failures)('answers %s with the error envelope to a caller that asks for JSON', async (_label, overrides, error) => {
    const res = await h.api
      .get('/oauth/authorize')
      .query(authorizeQuery(attackerClient, pkce().challenge, { redirect_uri: EVIL, ...overrides }))
      .set(h.as({ ip: freshIp() }))
      .set('Accept', 'application/json');

    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.body.error).toMatchObject({ code: error, status: 400 });
  });

  it('keeps a self-hosted metadata document client on the error page too', async () => {
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(documentClient, pkce().challenge, { scope: 'admin' })).set(h.as({ ip: freshIp() }));

    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it('still sends a person\'s denial back to the client as access_denied', async () => {
    const ctx = { ip: freshIp() };
    const { path, csrf } = await startConsent({ h, ctx }, attackerClient, pkce().challenge, { redirect_uri: EVIL });
    const res = await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, decision: 'deny' });
    const url = new URL(res.headers.location as string);

    expect(res.status).toBe(303);
    expect(`${url.origin}${url.pathname}`).toBe(EVIL);
    expect(url.searchParams.get('error')).toBe('access_denied');
  });
});

describe('GET /oauth/authorize for a verified client', () => {
  it.each(failures)('redirects %s back to the registered URI with error, state and iss', async (_label, overrides, error) => {
    const res = await verified.api.get('/oauth/authorize').query(authorizeQuery(documentClient, pkce().challenge, overrides)).set(verified.as({ ip: freshIp() }));

    expect(res.status).toBe(303);
    const url = new URL(res.headers.location as string);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:4711/callback');
    expect(url.searchParams.get('error')).toBe(error);
    expect(url.searchParams.get('state')).toBe('st-123');
    expect(url.searchParams.get('iss')).toBe(TEST_BASE_URL);
  });

  it('never redirects a registered public client, whatever its redirect host', async () => {
    const reg = await verified.api.post('/oauth/register').set(verified.as({ ip: freshIp() })).send({ client_name: 'Self', redirect_uris: ['http://127.0.0.1:4711/callback'] });
    const res = await verified.api.get('/oauth/authorize').query(authorizeQuery(reg.body.client_id, pkce().challenge, { scope: 'admin' })).set(verified.as({ ip: freshIp() }));

    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });
});
