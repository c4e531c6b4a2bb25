// What an app directory's reviewer meets, through the gateway against the
// whole system: the sandbox from the first consent page without an e-mail
// code, whose token creates sandbox shop requests and never a live one, and
// the domain verification file of the ChatGPT apps directory.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';
import { ConsentSession, buildShopRequest, pkce } from './oauth-agent-hosts-support.js';

const CHALLENGE = 'oai-apps-challenge-9d2f51c0b8e4';
const REDIRECT = 'http://127.0.0.1:4711/callback';

let system: System;
let base: string;
let clientId: string;

beforeAll(async () => {
  system = await startSystem({
    name: 'directory-review',
    gatewayEnv: { OPENAI_APPS_CHALLENGE: CHALLENGE, RATE_LIMIT_ANON_PER_MINUTE: '10000' },
  });
  base = system.baseUrl;
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Reviewer Host', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  clientId = ((await registered.json()) as { client_id: string }).client_id;
});

afterAll(async () => {
  await system?.close();
});

function authorizationUrl(challenge: string): string {
  const url = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'review',
    scope: 'catalog:read requests:write requests:read',
  })) {
    url.searchParams.set(k, v);
  }
  return url.href;
}

/** The reviewer's way in: the first consent page's sandbox form, then the token exchange. */
async function sandboxTokenWithoutEmail(): Promise<{ access_token: string }> {
  const { verifier, challenge } = pkce();
  const session = new ConsentSession();
  await session.authorize(authorizationUrl(challenge));
  await session.page();
  const approved = await session.post({ mode: 'sandbox', decision: 'approve' });
  if (approved.status !== 303) throw new Error(`the sandbox form answered ${approved.status}`);
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT }),
  });
  if (token.status !== 200) throw new Error(`the token endpoint answered ${token.status}: ${await token.text()}`);
  return (await token.json()) as { access_token: string };
}

describe('the sandbox without an e-mail code, through the gateway', () => {
  it('gives a token whose shop request on the live path is a sandbox request, stored and never queued', async () => {
    const { access_token: token } = await sandboxTokenWithoutEmail();
    const auth = { authorization: `Bearer ${token}` };

    const me = await fetch(`${base}/v1/me`, { headers: auth });
    const created = await fetch(`${base}/v1/shop-requests`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(buildShopRequest()),
    });
    const body = (await created.json()) as { id: string; sandbox: boolean };
    const readBack = await fetch(`${base}/v1/shop-requests/${body.id}`, { headers: auth });
    const queued = await system.redis.keys(`${system.queuePrefix}:intake:${body.id}*`);

    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: expect.stringMatching(/^msa_user_test_anon_/), mode: 'sandbox' });
    expect(created.status).toBe(201);
    expect(body.sandbox).toBe(true);
    expect(readBack.status).toBe(200);
    expect(queued).toEqual([]);
  });

  it('refuses live on the consent page without a confirmed code, and issues no code', async () => {
    const session = new ConsentSession();
    await session.authorize(authorizationUrl(pkce().challenge));
    await session.page();

    const res = await session.post({ mode: 'live', decision: 'approve' });

    expect(res.status).toBe(422);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('GET /.well-known/openai-apps-challenge', () => {
  it('answers the configured token as text/plain', async () => {
    const res = await fetch(`${base}/.well-known/openai-apps-challenge`);

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await res.text()).toBe(CHALLENGE);
  });
});

describe('GET /.well-known/openai-apps-challenge without a token', () => {
  let bare: System;

  beforeAll(async () => {
    bare = await startSystem({ name: 'directory-review-bare' });
  });
  afterAll(async () => {
    await bare?.close();
  });

  it('answers 404 with the error envelope', async () => {
    const res = await fetch(`${bare.baseUrl}/.well-known/openai-apps-challenge`);

    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { status: 404 } });
  });
});
