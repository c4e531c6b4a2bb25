import { createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';
import { consent, pkce, serveClient, startDocServer, type DocServer } from './authorize-support.js';

let h: IdentityHarness;
let docs: DocServer;
let clientId: string;
let otherClientId: string;
const REDIRECT = 'http://127.0.0.1:4711/callback';
const flow = () => ({ h, ctx: { ip: freshIp() } });

beforeAll(async () => {
  h = await startIdentity('token-grants');
  docs = await startDocServer();
  clientId = serveClient(docs, '/client.json');
  otherClientId = serveClient(docs, '/other.json');
});
afterAll(async () => {
  await docs?.close();
  await h?.close();
});

async function approvedCode(opts: { mode?: string; resource?: string; email?: string; scope?: string } = {}) {
  const { verifier, challenge } = pkce();
  const url = await consent(flow(), clientId, challenge, {
    mode: opts.mode ?? 'live',
    overrides: { ...(opts.resource ? { resource: opts.resource } : {}), ...(opts.scope ? { scope: opts.scope } : {}) },
    ...(opts.email ? { email: opts.email } : {}),
  });
  return { code: url.searchParams.get('code')!, verifier };
}

function exchange(code: string, verifier: string, overrides: Record<string, string | undefined> = {}) {
  const body = Object.fromEntries(
    Object.entries({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT, ...overrides }).filter(([, v]) => v !== undefined),
  );
  return h.api.post('/oauth/token').set(h.as({ ip: freshIp() })).type('form').send(body);
}

function refresh(token: string, overrides: Record<string, string> = {}) {
  return h.api.post('/oauth/token').set(h.as({ ip: freshIp() })).type('form').send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: token, ...overrides });
}

function revoke(form: Record<string, string>) {
  return h.api.post('/oauth/revoke').set(h.as({ ip: freshIp() })).type('form').send(form);
}

async function grantActive(accessToken: string): Promise<boolean> {
  const { grant } = jwt.decode(accessToken) as { grant: string };
  const res = await h.api.post('/internal/grant-status').set(h.as()).send({ grant });
  return res.body.active as boolean;
}

describe('the authorization code grant', () => {
  it('issues an RFC 9068 token whose subject is the confirmed address in the chosen mode, and a refresh token', async () => {
    const { code, verifier } = await approvedCode({ resource: `${TEST_BASE_URL}/mcp`, email: 'erika@example.org' });
    const res = await exchange(code, verifier);

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'catalog:read requests:write requests:read' });
    expect(res.body.refresh_token).toMatch(/^msa_rt_/);
    const key = createPublicKey({ key: h.tokenKeys.jwks.keys[0] as never, format: 'jwk' });
    const claims = jwt.verify(res.body.access_token, key, { algorithms: ['ES256'], audience: `${TEST_BASE_URL}/mcp`, issuer: TEST_BASE_URL }) as Record<string, unknown>;
    expect(claims).toMatchObject({ sub: expect.stringMatching(/^msa_user_live_[0-9a-f]{24}$/), client_id: clientId, email: 'erika@example.org', client_name: 'Test Host', mode: 'live' });
    expect(jwt.decode(res.body.access_token, { complete: true })!.header.typ).toBe('at+jwt');
  });

  it('gives every client the same principal for one address and mode', async () => {
    const a = await approvedCode({ email: 'same@example.org' });
    const b = await approvedCode({ email: 'same@example.org' });
    const subA = (jwt.decode((await exchange(a.code, a.verifier)).body.access_token) as { sub: string }).sub;
    const subB = (jwt.decode((await exchange(b.code, b.verifier)).body.access_token) as { sub: string }).sub;
    const sandbox = await approvedCode({ mode: 'sandbox', email: 'same@example.org' });
    const subSandbox = (jwt.decode((await exchange(sandbox.code, sandbox.verifier)).body.access_token) as { sub: string }).sub;

    expect(subA).toBe(subB);
    expect(subSandbox).not.toBe(subA);
  });

  it('refuses a second use of a code and revokes what the first use issued', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const second = await exchange(code, verifier);

    expect(first.status).toBe(200);
    expect(second.status).toBe(400);
    expect(second.body.error.code).toBe('invalid_grant');
    expect(await grantActive(first.body.access_token)).toBe(false);
    expect((await refresh(first.body.refresh_token)).status).toBe(400);
  });

  it.each<[string, () => Record<string, string | undefined>]>([
    ['another client', () => ({ client_id: otherClientId })],
    ['a wrong PKCE verifier', () => ({ code_verifier: 'x'.repeat(43) })],
    ['another redirect URI', () => ({ redirect_uri: 'http://127.0.0.1:4711/other' })],
    ['no redirect URI although the request named one', () => ({ redirect_uri: undefined })],
  ])('refuses a code presented with %s', async (_label, overrides) => {
    const { code, verifier } = await approvedCode();
    const res = await exchange(code, verifier, overrides());

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_grant');
  });

  it('refuses a code without its verifier as invalid_request', async () => {
    const { code } = await approvedCode();
    const res = await exchange(code, '', { code_verifier: undefined });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', fields: [{ field: 'code_verifier', message: 'is required' }] });
  });

  it('refuses a public client that sends a secret', async () => {
    const { code, verifier } = await approvedCode();
    const res = await exchange(code, verifier, { client_secret: 'guess' });

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('invalid_client');
  });

  it('refuses a code made on the sandbox at the production token endpoint', async () => {
    const { verifier, challenge } = pkce();
    const url = await consent({ h, ctx: { ip: freshIp(), sandbox: true } }, clientId, challenge);
    const res = await exchange(url.searchParams.get('code')!, verifier);

    expect(url.searchParams.get('iss')).toBe(`${TEST_BASE_URL}/sandbox`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_grant');
  });
});

describe('the refresh token grant', () => {
  it('rotates the refresh token on every use', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const second = await refresh(first.body.refresh_token);
    const third = await refresh(second.body.refresh_token, { scope: 'catalog:read' });

    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expect(third.status).toBe(200);
    expect(third.body.scope).toBe('catalog:read');
    expect(third.body.refresh_token).not.toBe(second.body.refresh_token);
  });

  it('revokes the whole family when a token older than the last rotation comes back, grace or not', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const second = await refresh(first.body.refresh_token);
    const third = await refresh(second.body.refresh_token);
    const replay = await refresh(first.body.refresh_token);
    const latest = await refresh(third.body.refresh_token);

    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('invalid_grant');
    expect(latest.status).toBe(400);
    expect(await grantActive(third.body.access_token)).toBe(false);
  });

  it('answers two refreshes of one token at the same moment with the same refresh token, and keeps the grant', async () => {
    const { code, verifier } = await approvedCode({ resource: `${TEST_BASE_URL}/mcp` });
    const first = await exchange(code, verifier);

    const [a, b] = await Promise.all([refresh(first.body.refresh_token), refresh(first.body.refresh_token)]);

    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body.refresh_token).toBe(a.body.refresh_token);
    expect(a.body.refresh_token).not.toBe(first.body.refresh_token);
    const grants = [a, b].map((r) => jwt.decode(r.body.access_token) as { grant: string; aud: string });
    expect(grants[1]!.grant).toBe(grants[0]!.grant);
    expect(grants.map((g) => g.aud)).toEqual([`${TEST_BASE_URL}/mcp`, `${TEST_BASE_URL}/mcp`]);
    expect(await grantActive(b.body.access_token)).toBe(true);
    const next = await refresh(a.body.refresh_token);
    expect(next.status).toBe(200);
  });

  it('stores the successor for the grace sealed, never in clear', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const second = await refresh(first.body.refresh_token);
    const { grant } = jwt.decode(second.body.access_token) as { grant: string };

    const stored = JSON.stringify(await h.redis.redis.hgetall(`${h.redis.prefix}grant:{${grant}}`));

    expect(stored).not.toContain(second.body.refresh_token);
    expect(stored).not.toContain((second.body.refresh_token as string).slice(-40));
  });

  it('refuses a refresh token presented by another client without revoking it', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const stolen = await refresh(first.body.refresh_token, { client_id: otherClientId });
    const owner = await refresh(first.body.refresh_token);

    expect(stolen.status).toBe(400);
    expect(owner.status).toBe(200);
  });

  it('issues a refresh token whether or not offline_access was asked for, and never puts offline_access in a token', async () => {
    const withIt = await approvedCode({ scope: 'catalog:read offline_access' });
    const withoutIt = await approvedCode({ scope: 'catalog:read' });
    const a = await exchange(withIt.code, withIt.verifier);
    const b = await exchange(withoutIt.code, withoutIt.verifier);
    const refreshed = await refresh(a.body.refresh_token, { scope: 'offline_access catalog:read' });

    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ scope: 'catalog:read', refresh_token: expect.stringMatching(/^msa_rt_/) });
    expect(b.body).toMatchObject({ scope: 'catalog:read', refresh_token: expect.stringMatching(/^msa_rt_/) });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('catalog:read');
    expect((jwt.decode(refreshed.body.access_token) as { scope: string }).scope).toBe('catalog:read');
  });

  it('refuses a guessed refresh token without touching the grant', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const forged = first.body.refresh_token.replace(/_[0-9A-Za-z]{40}$/, `_${'A'.repeat(40)}`);
    const res = await refresh(forged);

    expect(res.status).toBe(400);
    expect(await grantActive(first.body.access_token)).toBe(true);
  });
});

describe('the refresh token grant after the reuse grace', () => {
  let brief: IdentityHarness;
  beforeAll(async () => {
    brief = await startIdentity('token-grants-grace', { refreshReuseGraceSeconds: 1 });
  });
  afterAll(async () => {
    await brief?.close();
  });

  it('revokes the family when the token rotated last comes back once its grace is over', async () => {
    const { verifier, challenge } = pkce();
    const url = await consent({ h: brief, ctx: { ip: freshIp() } }, clientId, challenge);
    const post = (form: Record<string, string>) => brief.api.post('/oauth/token').set(brief.as({ ip: freshIp() })).type('form').send(form);
    const first = await post({ grant_type: 'authorization_code', client_id: clientId, code: url.searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT });
    const refreshWith = (token: string) => post({ grant_type: 'refresh_token', client_id: clientId, refresh_token: token });
    const second = await refreshWith(first.body.refresh_token);
    const withinGrace = await refreshWith(first.body.refresh_token);

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const afterGrace = await refreshWith(first.body.refresh_token);
    const latest = await refreshWith(second.body.refresh_token);

    expect(withinGrace.status).toBe(200);
    expect(withinGrace.body.refresh_token).toBe(second.body.refresh_token);
    expect(afterGrace.status).toBe(400);
    expect(afterGrace.body.error.code).toBe('invalid_grant');
    expect(latest.status).toBe(400);
    const { grant } = jwt.decode(second.body.access_token) as { grant: string };
    const status = await brief.api.post('/internal/grant-status').set(brief.as()).send({ grant });
    expect(status.body.active).toBe(false);
  });
});

describe('the resource as the token\'s audience', () => {
  it('keeps the trailing slash of the resource the client sent in aud, through refreshes', async () => {
    const { code, verifier } = await approvedCode({ resource: `${TEST_BASE_URL}/` });
    const issued = await exchange(code, verifier, { resource: `${TEST_BASE_URL}/` });
    const refreshed = await refresh(issued.body.refresh_token);

    expect(issued.status).toBe(200);
    expect((jwt.decode(issued.body.access_token) as { aud: string }).aud).toBe(`${TEST_BASE_URL}/`);
    expect((jwt.decode(refreshed.body.access_token) as { aud: string }).aud).toBe(`${TEST_BASE_URL}/`);
  });

  it('takes the other spelling of the same resource at the token endpoint, and it becomes the aud', async () => {
    const { code, verifier } = await approvedCode({ resource: `${TEST_BASE_URL}/mcp/` });
    const issued = await exchange(code, verifier, { resource: `${TEST_BASE_URL}/mcp` });
    const other = await refresh(issued.body.refresh_token, { resource: TEST_BASE_URL });

    expect(issued.status).toBe(200);
    expect((jwt.decode(issued.body.access_token) as { aud: string }).aud).toBe(`${TEST_BASE_URL}/mcp`);
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe('invalid_target');
  });
});

describe('POST /oauth/revoke', () => {
  it('revokes a refresh token and its grant, and answers 200 for tokens it does not know', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const revoked = await h.api.post('/oauth/revoke').set(h.as()).type('form').send({ token: first.body.refresh_token, token_type_hint: 'refresh_token', client_id: clientId });
    const unknown = await h.api.post('/oauth/revoke').set(h.as()).type('form').send({ token: 'nothing-we-know', client_id: clientId });

    expect(revoked.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect((await refresh(first.body.refresh_token)).status).toBe(400);
    expect(await grantActive(first.body.access_token)).toBe(false);
  });

  it('revokes the grant of an access token, so the token and its refresh token stop working', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const before = await grantActive(first.body.access_token);

    const revoked = await revoke({ token: first.body.access_token, token_type_hint: 'access_token', client_id: clientId });

    expect(before).toBe(true);
    expect(revoked.status).toBe(200);
    expect(await grantActive(first.body.access_token)).toBe(false);
    expect((await refresh(first.body.refresh_token)).status).toBe(400);
  });

  it('refuses to revoke an access token for another client and leaves its grant active', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);

    const res = await revoke({ token: first.body.access_token, client_id: otherClientId });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', fields: [{ field: 'client_id', message: expect.any(String) }] });
    expect(await grantActive(first.body.access_token)).toBe(true);
  });

  it('answers unsupported_token_type for a client-credentials access token, which has no grant to revoke', async () => {
    const creds = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send({ name: 'Revoker', email: 'dev@example.org' });
    const token = await h.api
      .post('/oauth/token')
      .set(h.as())
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: creds.body.client_id, client_secret: creds.body.client_secret });

    const res = await revoke({ token: token.body.access_token, client_id: creds.body.client_id });

    expect(token.status).toBe(200);
    expect(res.status).toBe(400);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.error).toMatchObject({ code: 'unsupported_token_type', status: 400 });
  });

  it('answers 200 for an access token signed by another key, and revokes nothing', async () => {
    const { code, verifier } = await approvedCode();
    const first = await exchange(code, verifier);
    const [header, payload] = (first.body.access_token as string).split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;

    const res = await revoke({ token: forged, client_id: clientId });

    expect(res.status).toBe(200);
    expect(await grantActive(first.body.access_token)).toBe(true);
  });
});

describe('POST /oauth/register for public clients', () => {
  it('registers a host that sends only client_name and redirect_uris, and lets it through the consent page', async () => {
    const ip = freshIp();
    const reg = await h.api.post('/oauth/register').set(h.as({ ip })).send({ client_name: 'Claude', redirect_uris: [REDIRECT] });

    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({
      client_id: expect.stringMatching(/^msa_pub_[0-9A-Za-z]{24}$/),
      client_name: 'Claude',
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(reg.body.client_secret).toBeUndefined();
    expect(reg.body.api_key).toBeUndefined();

    const { verifier, challenge } = pkce();
    const url = await consent(flow(), reg.body.client_id, challenge);
    const tokens = await exchange(url.searchParams.get('code')!, verifier, { client_id: reg.body.client_id });
    expect(tokens.status).toBe(200);
  });

  it('does not count public clients against the ten credential creations of an address', async () => {
    const ip = freshIp();
    for (let i = 0; i < 11; i++) {
      const res = await h.api.post('/oauth/register').set(h.as({ ip })).send({ client_name: `Host ${i}`, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
      expect(res.status).toBe(201);
    }
    const key = await h.api.post('/v1/keys').set(h.as({ ip })).send({ name: 'Still free', email: 'dev@example.org' });

    expect(key.status).toBe(201);
  });

  it.each([
    ['an http redirect URI off loopback', ['http://evil.example/cb'], 'redirect_uris.0'],
    ['a javascript: redirect URI', ['javascript:alert(1)'], 'redirect_uris.0'],
    ['a redirect URI with a fragment', ['https://app.example/cb#x'], 'redirect_uris.0'],
    ['no redirect URI', [], 'redirect_uris'],
  ])('refuses %s', async (_label, uris, field) => {
    const res = await h.api.post('/oauth/register').set(h.as({ ip: freshIp() })).send({ client_name: 'Bad', redirect_uris: uris, token_endpoint_auth_method: 'none' });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_client_metadata');
    expect(res.body.error.fields).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });
});
