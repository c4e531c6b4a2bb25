// The authorization code flow through the gateway as a strict client sees it
// (oauth4webapi: discovery, PKCE S256, state, RFC 9207 `iss`, rotating
// refresh tokens), and the attacks it must withstand: open redirects, unknown
// clients, missing or plain PKCE, reused codes and refresh tokens, codes of
// another client, unusable metadata documents, forms without their CSRF token
// and guessed e-mail codes. The consent page is driven with plain fetch, the
// way a browser without JavaScript sends its forms; the codes come from the
// SMTP sink through the intake worker.
import { randomBytes } from 'node:crypto';
import { BOUNDS, LIMITS } from '@msa/contracts';
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';
import { ConsentSession, consentCode, consentWithFetch, json, personEmail, pkce, startAgentHost, type AgentHost } from './oauth-agent-hosts-support.js';

let system: System;
let base: string;
let smtp: SmtpSink;
let host: AgentHost;
let as: oauth.AuthorizationServer;
let strict: oauth.Client;
let other: oauth.Client;

// Plain http on loopback; production runs behind https.
const insecure = { [oauth.allowInsecureRequests]: true };

async function register(clientName: string): Promise<oauth.Client> {
  const res = await oauth.dynamicClientRegistrationRequest(
    as,
    { client_name: clientName, redirect_uris: [host.redirectUri], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' },
    insecure,
  );
  return (await oauth.processDynamicClientRegistrationResponse(res)) as oauth.Client;
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  host = await startAgentHost();
  system = await startSystem({
    name: 'oauth-agent-hosts-strict-client',
    worker: { smtpUrl: smtp.url },
    env: { CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: 'true' },
    // No cached grant status: a revoked grant's tokens are refused at once.
    gatewayEnv: { KEY_CACHE_TTL_MS: '0', RATE_LIMIT_ANON_PER_MINUTE: '10000', RATE_LIMIT_PER_MINUTE: '10000' },
  });
  base = system.baseUrl;
  const issuer = new URL(base);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  strict = await register('Strenger Client');
  other = await register('Anderer Client');
});

afterAll(async () => {
  await system?.close();
  await host?.close();
  await smtp?.close();
});

function authorizationUrl(clientId: string, params: Record<string, string | undefined> = {}): URL {
  const url = new URL(as.authorization_endpoint!);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: host.redirectUri,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    scope: 'catalog:read requests:write requests:read',
    ...params,
  };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

/** Signs a person in with oauth4webapi, live; returns the token response and what it needs again. */
async function signIn(client: oauth.Client, email: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = authorizationUrl(client.client_id, { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), state });
  const callback = await consentWithFetch(url, smtp, { email, mode: 'live' });
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, host.redirectUri, verifier, insecure);
  return { callback, state, tokens: await oauth.processAuthorizationCodeResponse(as, client, response) };
}

async function refresh(client: oauth.Client, refreshToken: string) {
  return oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure));
}

/**
 * The status and envelope code of a refused token request. The token
 * endpoint answers with the API's envelope (`error` is an object), which
 * oauth4webapi does not read as an OAuth error: it hands the response over.
 */
async function refusal(pending: Promise<unknown>): Promise<{ status: number; code: string }> {
  const err = await pending.then(
    () => {
      throw new Error('the token request was not refused');
    },
    (e: unknown) => e,
  );
  const res = (err as { cause?: unknown }).cause;
  if (!(res instanceof Response)) throw err;
  const body = (await res.json()) as { error: { code: string } };
  return { status: res.status, code: body.error.code };
}

const me = (accessToken: string) => fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });

function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
}

const tokenRequest = (params: Record<string, string>) =>
  fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });

describe('oauth4webapi as a strict client', () => {
  it('discovers the issuer, signs in with PKCE S256 and state, checks iss, and the token names the confirmed person and the client', async () => {
    const email = personEmail('strict');

    const { callback, state, tokens } = await signIn(strict, email);
    const profile = await me(tokens.access_token);

    expect(as).toMatchObject({
      issuer: base,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(callback.searchParams.get('iss')).toBe(base);
    expect(() => oauth.validateAuthResponse(as, strict, withParam(callback, 'iss', 'https://mix-up.example'), state)).toThrow(/iss/);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toMatch(/^msa_rt_/);
    expect(claimsOf(tokens.access_token)).toMatchObject({ iss: base, aud: base, client_id: strict.client_id });
    expect(profile.status).toBe(200);
    expect(await profile.json()).toMatchObject({ via: 'oauth', mode: 'live', confirmed_email: email, client: { id: strict.client_id, name: 'Strenger Client' } });
  });

  it('gets a new refresh token on every refresh, and each new access token works', async () => {
    const { tokens } = await signIn(strict, personEmail('rotation'));

    const first = await refresh(strict, tokens.refresh_token!);
    const second = await refresh(strict, first.refresh_token!);

    expect(new Set([tokens.refresh_token, first.refresh_token, second.refresh_token]).size).toBe(3);
    expect(second.refresh_token).toMatch(/^msa_rt_/);
    expect((await me(second.access_token)).status).toBe(200);
  });

  it('revokes the whole grant when a used refresh token comes back: the rotated token and the access tokens are refused afterwards', async () => {
    const { tokens } = await signIn(strict, personEmail('replay'));
    const first = await refresh(strict, tokens.refresh_token!);
    const second = await refresh(strict, first.refresh_token!);
    expect((await me(second.access_token)).status).toBe(200);

    const replay = await refusal(refresh(strict, tokens.refresh_token!));
    const rotated = await refusal(refresh(strict, second.refresh_token!));
    const latestAccess = await me(second.access_token);
    const firstAccess = await me(tokens.access_token);

    expect(replay).toEqual({ status: 400, code: 'invalid_grant' });
    expect(rotated).toEqual({ status: 400, code: 'invalid_grant' });
    expect(latestAccess.status).toBe(401);
    expect(firstAccess.status).toBe(401);
  });

  it('signs in on the sandbox issuer: iss names it, and the token stays on the sandbox even when the form asks for live', async () => {
    const issuer = new URL(`${base}/sandbox`);
    const sandboxAs = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(sandboxAs.authorization_endpoint!);
    url.search = authorizationUrl(strict.client_id, { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), state }).search;
    const email = personEmail('sandbox');

    const callback = await consentWithFetch(url, smtp, { email, mode: 'live' });
    const params = oauth.validateAuthResponse(sandboxAs, strict, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      sandboxAs,
      strict,
      await oauth.authorizationCodeGrantRequest(sandboxAs, strict, oauth.None(), params, host.redirectUri, verifier, insecure),
    );
    const profile = await me(tokens.access_token);

    expect(sandboxAs.authorization_endpoint).toBe(`${base}/sandbox/oauth/authorize`);
    expect(callback.searchParams.get('iss')).toBe(`${base}/sandbox`);
    expect(claimsOf(tokens.access_token)).toMatchObject({ iss: `${base}/sandbox` });
    expect(await profile.json()).toMatchObject({ mode: 'sandbox', via: 'oauth', confirmed_email: email });
  });
});

function withParam(url: URL, name: string, value: string): URL {
  const copy = new URL(url);
  copy.searchParams.set(name, value);
  return copy;
}

/** An answer that ends the flow on our page: HTML, no redirect anywhere. */
async function expectErrorPage(res: Response, status: number): Promise<string> {
  const html = await res.text();
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.headers.get('location')).toBeNull();
  return html;
}

describe('GET /oauth/authorize through the gateway', () => {
  it.each([
    ['an https URI of another site', 'https://evil.example/callback'],
    ['a loopback URI with another path', 'http://127.0.0.1:4711/steal'],
  ])('answers a redirect_uri that is not registered (%s) with a 400 page and no redirect', async (_, redirectUri) => {
    const res = await fetch(authorizationUrl(strict.client_id, { redirect_uri: redirectUri }), { redirect: 'manual' });

    const html = await expectErrorPage(res, 400);
    expect(html).toContain('redirect_uri');
    expect(html).not.toContain(redirectUri);
  });

  it('answers an unknown client_id with an error page and no redirect', async () => {
    const unknown = `msa_pub_${randomBytes(12).toString('hex')}`;

    const res = await fetch(authorizationUrl(unknown), { redirect: 'manual' });

    expect(await expectErrorPage(res, 400)).toContain('client_id');
  });

  it.each([
    ['without code_challenge', { code_challenge: undefined, code_challenge_method: undefined }],
    ['with code_challenge_method=plain', { code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }],
  ])('answers a request %s from a self-registered client with our error page, never a redirect to its URI', async (_, params) => {
    const res = await fetch(authorizationUrl(strict.client_id, { state: 'st-pkce', ...params }), { redirect: 'manual' });
    const json = await fetch(authorizationUrl(strict.client_id, { state: 'st-pkce', ...params }), { redirect: 'manual', headers: { accept: 'application/json' } });

    // Anyone can register a client: redirecting its errors would make our host an open redirector (RFC 9700 §4.11.2).
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it('sends access_denied with state and iss when the person denies', async () => {
    const session = new ConsentSession();
    await session.authorize(authorizationUrl(strict.client_id, { state: 'st-deny' }));
    await session.page();

    const res = await session.post({ decision: 'deny' });

    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(host.redirectUri);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({ error: 'access_denied', state: 'st-deny', iss: base });
  });
});

describe('Client ID Metadata Documents that cannot be used', () => {
  it.each([
    [
      'that redirects',
      'redirects are not followed',
      (path: string) => {
        const target = host.serveClient(`${path}-target`, 'Umgeleitet');
        host.route(path, (_req, res) => res.writeHead(302, { location: target }).end());
      },
    ],
    [
      `larger than ${BOUNDS.clientMetadataMaxBytes} bytes`,
      `larger than ${BOUNDS.clientMetadataMaxBytes} bytes`,
      (path: string) => {
        const clientId = `${host.documentOrigin}${path}`;
        const padding = `https://example.org/${'x'.repeat(BOUNDS.clientMetadataMaxBytes)}`;
        host.route(path, json({ client_id: clientId, client_name: 'Zu groß', redirect_uris: [host.redirectUri], token_endpoint_auth_method: 'none', client_uri: padding }));
      },
    ],
    [
      'whose client_id is another URL',
      'names another client_id than the URL',
      (path: string) => {
        host.route(path, json({ client_id: `${host.documentOrigin}/someone-else.json`, client_name: 'Falsch', redirect_uris: [host.redirectUri], token_endpoint_auth_method: 'none' }));
      },
    ],
  ])('ends on an error page for a document %s, without a redirect', async (_, reason, serve) => {
    const path = `/cimd-${randomBytes(4).toString('hex')}.json`;
    serve(path);

    const res = await fetch(authorizationUrl(`${host.documentOrigin}${path}`), { redirect: 'manual' });

    const html = await expectErrorPage(res, 400);
    expect(html).toContain('Client ID Metadata Document');
    expect(html).toContain(reason);
  });
});

describe('the consent page through the gateway', () => {
  it('refuses a form without its CSRF token with a 403 page and sends no code', async () => {
    const email = personEmail('csrf');
    const session = new ConsentSession();
    await session.authorize(authorizationUrl(strict.client_id));
    await session.page();

    const missing = await session.post({ csrf: undefined, email, decision: 'send_code' });
    const wrong = await session.post({ csrf: 'x'.repeat(32), email, decision: 'send_code' });
    const withoutCookie = await fetch(session.consentUrl!, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: session.csrf!, email, decision: 'send_code' }),
    });

    expect(session.cookie).toMatch(/^msa_consent=[0-9A-Za-z]{32,64}$/);
    expect(session.setCookie).toMatch(/; HttpOnly/i);
    expect(session.setCookie).toMatch(/; SameSite=Lax/i);
    await expectErrorPage(missing, 403);
    await expectErrorPage(wrong, 403);
    await expectErrorPage(withoutCookie, 403);
    expect(smtp.to(email)).toHaveLength(0);
  });

  it(`refuses the right code after ${LIMITS.consentCodeAttempts} wrong ones`, async () => {
    const email = personEmail('guess');
    const session = new ConsentSession({ 'accept-language': 'en' });
    await session.authorize(authorizationUrl(strict.client_id));
    await session.page();
    await session.sendCode(email);
    const code = await consentCode(smtp, email);
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');

    const guesses = [];
    for (let i = 0; i < LIMITS.consentCodeAttempts; i++) guesses.push(await session.post({ code: wrongCode, mode: 'live', decision: 'approve', lang: 'en' }));
    const right = await session.post({ code, mode: 'live', decision: 'approve', lang: 'en' });

    expect(smtp.to(email)[0]?.parsed.subject).toMatch(/^Your confirmation code: \d{6}$/);
    expect(guesses.map((g) => g.status)).toEqual(Array(LIMITS.consentCodeAttempts).fill(422));
    expect(guesses.every((g) => g.headers.get('location') === null)).toBe(true);
    expect(await expectErrorPage(right, 422)).toContain('entered wrongly too often');
  });
});

describe('POST /oauth/token with an authorization code through the gateway', () => {
  async function codeFor(client: oauth.Client) {
    const { verifier, challenge } = pkce();
    const callback = await consentWithFetch(authorizationUrl(client.client_id, { code_challenge: challenge }), smtp, { email: personEmail('code') });
    return { code: callback.searchParams.get('code')!, verifier };
  }

  const exchange = (clientId: string, code: string, verifier: string) =>
    tokenRequest({ grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: host.redirectUri, code_verifier: verifier });

  it('refuses a code used twice and revokes the tokens of its first exchange', async () => {
    const { code, verifier } = await codeFor(strict);

    const first = await exchange(strict.client_id, code, verifier);
    const tokens = (await first.json()) as { access_token: string; refresh_token: string };
    const before = await me(tokens.access_token);
    const second = await exchange(strict.client_id, code, verifier);
    const after = await me(tokens.access_token);
    const refreshAfter = await tokenRequest({ grant_type: 'refresh_token', client_id: strict.client_id, refresh_token: tokens.refresh_token });

    expect(first.status).toBe(200);
    expect(before.status).toBe(200);
    expect(second.status).toBe(400);
    expect(await second.json()).toMatchObject({ error: { code: 'invalid_grant' } });
    expect(after.status).toBe(401);
    expect(refreshAfter.status).toBe(400);
    expect(await refreshAfter.json()).toMatchObject({ error: { code: 'invalid_grant' } });
  });

  it('refuses a code presented by another client', async () => {
    const { code, verifier } = await codeFor(strict);

    const res = await exchange(other.client_id, code, verifier);

    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_grant' } });
  });
});
