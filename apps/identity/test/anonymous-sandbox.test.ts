/*
 * The sandbox without an e-mail code, driven over HTTP with the consent
 * page's cookie and CSRF token: the first page's second form gives a
 * sandbox grant whose principal is its own and holds no address, each such
 * principal counts as a new person of the caller's address, and live still
 * needs the confirmed address.
 */
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';
import { hidden, pkce, serveClient, startConsent, startDocServer, type DocServer } from './authorize-support.js';

let h: IdentityHarness;
let docs: DocServer;
let clientId: string;
const REDIRECT = 'http://127.0.0.1:4711/callback';

beforeAll(async () => {
  h = await startIdentity('anonymous-sandbox');
  docs = await startDocServer();
  clientId = serveClient(docs, '/client.json');
});
afterAll(async () => {
  await docs?.close();
  await h?.close();
});

/** The second form of the first page, as a browser sends it: CSRF, language, mode and decision, nothing else. */
function sandboxForm(path: string, csrf: string, ip: string, sandbox = false) {
  return h.api.post(path).set(h.as({ ip, sandbox })).type('form').send({ csrf, lang: 'en', mode: 'sandbox', decision: 'approve' });
}

async function approveWithoutEmail(ip = freshIp()) {
  const { verifier, challenge } = pkce();
  const { path, csrf } = await startConsent({ h, ctx: { ip } }, clientId, challenge);
  const res = await sandboxForm(path, csrf, ip);
  return { res, verifier };
}

function exchange(code: string, verifier: string) {
  return h.api
    .post('/oauth/token')
    .set(h.as({ ip: freshIp() }))
    .type('form')
    .send({ grant_type: 'authorization_code', client_id: clientId, code, code_verifier: verifier, redirect_uri: REDIRECT });
}

describe('the first consent page', () => {
  it('offers the sandbox in a second form with mode=sandbox, decision=approve and the CSRF token, without an address or a code field', async () => {
    const { page, csrf } = await startConsent({ h, ctx: { ip: freshIp() } }, clientId, pkce().challenge);
    const forms = page.text.match(/<form[\s\S]*?<\/form>/g) ?? [];
    const second = forms[1] ?? '';

    expect(forms).toHaveLength(2);
    expect(second).toContain('<input type="hidden" name="mode" value="sandbox">');
    expect(second).toContain('name="decision" value="approve"');
    expect(hidden(second, 'csrf')).toBe(csrf);
    expect(second).not.toMatch(/name="(email|code)"/);
  });
});

describe('approving the sandbox without an e-mail code', () => {
  it('redirects with a code that yields a sandbox token of a principal of its own, without an address', async () => {
    const { res, verifier } = await approveWithoutEmail();
    const url = new URL(res.headers.location as string);
    const token = await exchange(url.searchParams.get('code')!, verifier);
    const claims = jwt.decode(token.body.access_token) as Record<string, unknown>;

    expect(res.status).toBe(303);
    expect(url.searchParams.get('iss')).toBe(TEST_BASE_URL);
    expect(token.status).toBe(200);
    expect(token.body.refresh_token).toMatch(/^msa_rt_/);
    expect(claims.sub).toMatch(/^msa_user_test_anon_[0-9A-Za-z]{24}$/);
    expect(claims.mode).toBe('sandbox');
    expect(claims).not.toHaveProperty('email');
    expect(claims.grant).toEqual(expect.any(String));
  });

  it('gives every approval a principal of its own, kept across refreshes', async () => {
    const first = await approveWithoutEmail();
    const second = await approveWithoutEmail();
    const a = await exchange(new URL(first.res.headers.location as string).searchParams.get('code')!, first.verifier);
    const b = await exchange(new URL(second.res.headers.location as string).searchParams.get('code')!, second.verifier);
    const refreshed = await h.api
      .post('/oauth/token')
      .set(h.as({ ip: freshIp() }))
      .type('form')
      .send({ grant_type: 'refresh_token', client_id: clientId, refresh_token: a.body.refresh_token });

    const subOf = (t: string) => (jwt.decode(t) as { sub: string }).sub;
    expect(subOf(a.body.access_token)).not.toBe(subOf(b.body.access_token));
    expect(refreshed.status).toBe(200);
    expect(subOf(refreshed.body.access_token)).toBe(subOf(a.body.access_token));
  });

  it('refuses the form without its CSRF token', async () => {
    const ip = freshIp();
    const { path } = await startConsent({ h, ctx: { ip } }, clientId, pkce().challenge);

    const res = await sandboxForm(path, 'not-the-token', ip);

    expect(res.status).toBe(403);
    expect(res.headers.location).toBeUndefined();
  });

  it('is offered on the sandbox path too, and issues the sandbox issuer\'s code there', async () => {
    const ip = freshIp();
    const start = await h.api.get('/oauth/authorize').query({
      response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce().challenge, code_challenge_method: 'S256', state: 's',
    }).set(h.as({ ip, sandbox: true }));
    const path = new URL(start.headers.location as string).pathname.replace(/^\/sandbox/, '');
    const page = await h.api.get(path).set(h.as({ ip, sandbox: true }));

    const res = await sandboxForm(path, hidden(page.text, 'csrf'), ip, true);

    expect(res.status).toBe(303);
    expect(new URL(res.headers.location as string).searchParams.get('iss')).toBe(`${TEST_BASE_URL}/sandbox`);
  });
});

describe('live without a confirmed address', () => {
  it('refuses an approval for live on the first page and issues no code', async () => {
    const ip = freshIp();
    const { path, csrf } = await startConsent({ h, ctx: { ip } }, clientId, pkce().challenge);

    const res = await h.api.post(path).set(h.as({ ip })).type('form').send({ csrf, lang: 'en', mode: 'live', decision: 'approve' });
    const withCode = await h.api.post(path).set(h.as({ ip })).type('form').send({ csrf, lang: 'en', mode: 'live', code: '123456', decision: 'approve' });

    expect(res.status).toBe(422);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('first confirm your e-mail address');
    expect(withCode.status).toBe(422);
    expect(withCode.headers.location).toBeUndefined();
  });
});

describe('new principals per client address', () => {
  it('counts each sandbox principal as a new person of the address: the 11th of the day is refused, and so is a new mailbox after them', async () => {
    const ip = freshIp();
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await approveWithoutEmail(ip)).res.status);

    const eleventh = await approveWithoutEmail(ip);
    const { path, csrf } = await startConsent({ h, ctx: { ip } }, clientId, pkce().challenge);
    const mailbox = await h.api.post(path).set(h.as({ ip })).type('form').send({ csrf, email: 'after-ten@people.example', decision: 'send_code' });
    const elsewhere = await approveWithoutEmail(freshIp());

    expect(statuses).toEqual(Array(10).fill(303));
    expect(eleventh.res.status).toBe(429);
    expect(eleventh.res.headers.location).toBeUndefined();
    expect(eleventh.res.headers['retry-after']).toMatch(/^\d+$/);
    expect(mailbox.status).toBe(429);
    expect(elsewhere.res.status).toBe(303);
  });
});
