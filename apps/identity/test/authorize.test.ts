import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';
import { authorizeQuery, consent, hidden, json, pkce, serveClient, startConsent, startDocServer, type DocServer } from './authorize-support.js';

let h: IdentityHarness;
let docs: DocServer;
let clientId: string;
const ctx = { ip: freshIp() };
const flow = () => ({ h, ctx: { ip: freshIp() } });

beforeAll(async () => {
  h = await startIdentity('authorize');
  docs = await startDocServer();
  clientId = serveClient(docs, '/client.json');
});
afterAll(async () => {
  await docs?.close();
  await h?.close();
});

describe('GET /oauth/authorize', () => {
  it('sends the browser to the consent page with a binding cookie', async () => {
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge)).set(h.as(ctx));

    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(new RegExp(`^${TEST_BASE_URL}/oauth/consent/[0-9A-Za-z]{32}$`));
    // The test base is plain http; on https the cookie is `__Host-msa_consent` and Secure.
    expect(String(res.headers['set-cookie'])).toMatch(/^msa_consent=[0-9A-Za-z]{40}; Max-Age=1800; Path=\/; .*HttpOnly; SameSite=Lax/);
  });

  it('shows who asks, its host and the scopes in plain words, with the e-mail form', async () => {
    const { page } = await startConsent(flow(), clientId, pkce().challenge);

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toContain('<strong>Test Host</strong>');
    expect(page.text).toContain(new URL(clientId).host);
    expect(page.text).toContain('Shop-Anfragen für Ihre Organisation stellen');
    expect(page.text).toMatch(/<input id="email" name="email" type="email" autocomplete="email"/);
    expect(page.text).toContain('<label for="email">');
  });

  it('links the privacy notice of its environment, in its language, beside the e-mail field', async () => {
    const { page } = await startConsent(flow(), clientId, pkce().challenge);

    const afterField = page.text.slice(page.text.indexOf('<input id="email"'), page.text.indexOf('</form>'));
    expect(afterField).toContain(`<a href="${TEST_BASE_URL}/privacy?lang=de">Datenschutzerklärung</a>`);
  });

  it('speaks English when the browser asks for it, and offers German', async () => {
    const start = await h.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge)).set(h.as(ctx));
    const page = await h.api.get(new URL(start.headers.location as string).pathname).set(h.as(ctx)).set('Accept-Language', 'en-GB,en;q=0.9');

    expect(page.text).toContain('<html lang="en">');
    expect(page.text).toContain('submit shop requests for your organization');
    expect(page.text).toMatch(/href="[^"]+\?lang=de"/);
  });

  it.each([
    ['an unknown client_id', { client_id: 'msa_pub_AAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['a client_id that is no URL', { client_id: 'some-client' }],
    ['a redirect_uri that is not registered', { redirect_uri: 'https://evil.example/cb' }],
    ['a registered redirect_uri with another path', { redirect_uri: 'http://127.0.0.1:4711/elsewhere' }],
  ])('answers %s with an error page and never a redirect', async (_label, overrides) => {
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge, overrides)).set(h.as(ctx));

    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });

  it('accepts a loopback redirect URI on another port (RFC 8252)', async () => {
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge, { redirect_uri: 'http://127.0.0.1:59999/callback' })).set(h.as(ctx));

    expect(res.status).toBe(303);
  });
});

describe('client metadata documents', () => {
  it('refuses a document that redirects', async () => {
    docs.route('/redirecting.json', (_req, res) => res.writeHead(302, { location: `${docs.origin}/client.json` }).end());
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(`${docs.origin}/redirecting.json`, pkce().challenge)).set(h.as(ctx));

    expect(res.status).toBe(400);
    expect(res.text).toContain('redirects are not followed');
  });

  it('refuses a document larger than 5 kB', async () => {
    const id = `${docs.origin}/large.json`;
    docs.route('/large.json', json({ client_id: id, client_name: 'x'.repeat(6000), redirect_uris: ['http://127.0.0.1:4711/callback'] }));
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(id, pkce().challenge)).set(h.as(ctx));

    expect(res.status).toBe(400);
    expect(res.text).toContain('larger than 5120 bytes');
  });

  it('refuses a document whose client_id is another URL', async () => {
    docs.route('/mismatch.json', json({ client_id: 'https://trusted.example/client.json', redirect_uris: ['http://127.0.0.1:4711/callback'] }));
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(`${docs.origin}/mismatch.json`, pkce().challenge)).set(h.as(ctx));

    expect(res.status).toBe(400);
    expect(res.text).toContain('another client_id');
  });

  it('refuses a document with a redirect URI that is plain http off loopback', async () => {
    const id = serveClient(docs, '/http-redirect.json', 'http://evil.example/cb');
    const res = await h.api.get('/oauth/authorize').query(authorizeQuery(id, pkce().challenge, { redirect_uri: 'http://evil.example/cb' })).set(h.as(ctx));

    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
  });

  it('refuses a document on a private address unless private networks are allowed', async () => {
    const strict = await startIdentity('authorize-strict', { clientMetadataAllowPrivate: false });
    try {
      const httpsLoopback = `https://127.0.0.1:${new URL(docs.origin).port}/client.json`;
      const res = await strict.api.get('/oauth/authorize').query(authorizeQuery(httpsLoopback, pkce().challenge)).set(strict.as(ctx));
      const plainHttp = await strict.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge)).set(strict.as(ctx));

      expect(res.status).toBe(400);
      expect(res.text).toContain('is not public');
      expect(plainHttp.status).toBe(400);
    } finally {
      await strict.close();
    }
  });

  it('reuses a fetched document while its Cache-Control allows', async () => {
    let hits = 0;
    const id = `${docs.origin}/cached.json`;
    docs.route('/cached.json', (req, res) => {
      hits++;
      json({ client_id: id, client_name: 'Cached', redirect_uris: ['http://127.0.0.1:4711/callback'] }, { 'cache-control': 'max-age=60' })(req, res);
    });
    for (let i = 0; i < 3; i++) await h.api.get('/oauth/authorize').query(authorizeQuery(id, pkce().challenge)).set(h.as(ctx));

    expect(hits).toBe(1);
  });
});

describe('the consent page', () => {
  it('refuses a form post without its CSRF token', async () => {
    const { path } = await startConsent(flow(), clientId, pkce().challenge);
    const res = await h.api.post(path).set(h.as(ctx)).type('form').send({ email: 'erika@example.org', decision: 'send_code' });

    expect(res.status).toBe(403);
    expect(await h.lastConsentCode()).not.toMatchObject({ to: 'erika@example.org' });
  });

  it('refuses the page from another browser (no binding cookie)', async () => {
    const { path, csrf } = await startConsent(flow(), clientId, pkce().challenge);
    const { default: supertest } = await import('supertest');
    const other = supertest(h.app);
    const res = await other.post(path).set(h.as(ctx)).type('form').send({ csrf, email: 'mallory@example.org', decision: 'send_code' });

    expect(res.status).toBe(403);
  });

  it('e-mails a 6-digit code and moves to the code step without saying whether the address is known', async () => {
    const { path, csrf } = await startConsent(flow(), clientId, pkce().challenge);
    const sent = await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, email: 'new-person@example.org', decision: 'send_code' });
    const page = await h.api.get(path).set(h.as(ctx));

    expect(sent.status).toBe(303);
    expect(await h.lastConsentCode()).toMatchObject({ to: 'new-person@example.org', code: expect.stringMatching(/^\d{6}$/) });
    expect(page.text).toContain('Wenn diese Adresse E-Mails empfangen kann');
    expect(page.text).toMatch(/name="code" type="text" inputmode="numeric" autocomplete="one-time-code"/);
    expect(page.text).toContain('<input type="radio" id="mode-live" name="mode" value="live"');
    expect(page.text).toContain('name="decision" value="approve"');
  });

  it('keeps the code and the address out of the mail job in clear', async () => {
    const { path, csrf } = await startConsent(flow(), clientId, pkce().challenge);
    await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, email: 'sealed@example.org', decision: 'send_code' });
    const [job] = await h.mailQueue.getJobs(['waiting'], 0, 0, false);
    const code = (await h.lastConsentCode())!.code;

    expect(JSON.stringify(job!.data)).not.toContain('sealed@example.org');
    expect(JSON.stringify(job!.data)).not.toContain(code);
  });

  it('refuses the right code after five wrong ones', async () => {
    const { path, csrf } = await startConsent(flow(), clientId, pkce().challenge);
    await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, email: 'guess@example.org', decision: 'send_code' });
    const { code } = (await h.lastConsentCode())!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, code: wrong, mode: 'live', decision: 'approve' }));
    const sixth = await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, code, mode: 'live', decision: 'approve' });

    expect(answers.map((r) => r.status)).toEqual([422, 422, 422, 422, 422]);
    expect(answers[0]!.text).toContain('Noch 4 Versuche');
    expect(sixth.status).toBe(422);
    expect(sixth.headers.location).toBeUndefined();
    expect(sixth.text).toContain('abgelaufen oder wurde zu oft falsch eingegeben');
  });

  it('limits code e-mails per address with a clear 429 page', async () => {
    const f = flow();
    const statuses = [];
    for (let i = 0; i < 6; i++) {
      const { path, csrf } = await startConsent({ h, ctx: { ip: freshIp() } }, clientId, pkce().challenge);
      const res = await h.api.post(path).set(h.as(f.ctx)).type('form').send({ csrf, email: 'often@example.org', decision: 'send_code' });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
        expect(res.text).toContain('Zu viele Codes');
      }
    }

    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
  });

  it('redirects a denial with access_denied, state and iss', async () => {
    const { path, csrf } = await startConsent(flow(), clientId, pkce().challenge);
    const res = await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, decision: 'deny' });
    const url = new URL(res.headers.location as string);

    expect(res.status).toBe(303);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe('st-123');
    expect(url.searchParams.get('iss')).toBe(TEST_BASE_URL);
  });

  it('approves with the right code and redirects with code, state and iss, once', async () => {
    const { challenge } = pkce();
    const url = await consent(flow(), clientId, challenge);

    expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBe('st-123');
    expect(url.searchParams.get('iss')).toBe(TEST_BASE_URL);
  });

  it('offers only the sandbox on the sandbox path', async () => {
    const sandboxCtx = { ip: freshIp(), sandbox: true };
    const start = await h.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge)).set(h.as(sandboxCtx));
    // The gateway removes /sandbox before identity sees the path.
    const path = new URL(start.headers.location as string).pathname.replace(/^\/sandbox/, '');
    const page = await h.api.get(path).set(h.as(sandboxCtx));
    const csrf = hidden(page.text, 'csrf');
    await h.api.post(path).set(h.as(sandboxCtx)).type('form').send({ csrf, email: 'sb@example.org', decision: 'send_code' });
    const codePage = await h.api.get(path).set(h.as(sandboxCtx));

    expect(start.headers.location).toMatch(new RegExp(`^${TEST_BASE_URL}/sandbox/oauth/consent/`));
    expect(codePage.text).not.toContain('value="live"');
    expect(codePage.text).toContain('name="mode" value="sandbox"');
  });
});
