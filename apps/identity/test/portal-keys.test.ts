import { LIMITS } from '@msa/contracts';
import { limitKeyOfAddress } from '@msa/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, basicAuth, buildKeyRequest, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity('identity-portal-keys');
});
afterAll(async () => {
  await h.close();
});

/** What a browser sends for the portal's form. */
function buildKeyForm(overrides: Record<string, string> = {}) {
  return { name: 'Vereinsheim Bot', email: 'dev@example.org', mode: 'sandbox', ...overrides };
}

function postForm(form: Record<string, string>, ctx: { ip?: string; sandbox?: boolean } = {}) {
  return h.api
    .post('/developers/keys')
    .set(h.as({ ip: ctx.ip ?? freshIp(), sandbox: ctx.sandbox ?? false }))
    .set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')
    .type('form')
    .send(form);
}

/** The secrets as the page shows them. */
function secretsOf(html: string) {
  const shown = (field: string) => new RegExp(`\\(<code>${field}</code>\\)</dt>\\n<dd><code>([^<]+)</code></dd>`).exec(html)?.[1];
  return { apiKey: shown('api_key'), clientId: shown('client_id'), clientSecret: shown('client_secret') };
}

async function creationsToday(ip: string): Promise<number> {
  return h.redis.redis.hlen(`${h.redis.prefix}quota:credentials:${limitKeyOfAddress(ip)}:${new Date().toISOString().slice(0, 10)}`);
}

describe('POST /developers/keys (the portal form)', () => {
  it('creates a key that then works on GET /v1/me', async () => {
    const res = await postForm(buildKeyForm({ name: 'Vereinsheim Bot' }));

    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const { apiKey, clientId } = secretsOf(res.text);
    expect(apiKey).toMatch(/^msa_test_[0-9A-Za-z]{32,}$/);
    // What the gateway does with the key: resolve it, then call with the principal it names.
    const introspected = await h.api.post('/internal/introspect').set(h.as()).send({ api_key: apiKey });
    expect(introspected.body).toMatchObject({ active: true, principal: { id: clientId, name: 'Vereinsheim Bot', mode: 'sandbox' } });
    const me = await h.api.get('/v1/me').set(h.as({ principal: { ...introspected.body.principal, via: 'api_key' } }));
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: clientId, name: 'Vereinsheim Bot', mode: 'sandbox', scopes: ['catalog:read', 'shops:read', 'requests:write', 'requests:read'] });
  });

  it('shows the api key, client id and client secret once, on a page no cache keeps, with links back to the portal', async () => {
    const res = await postForm(buildKeyForm({ mode: 'live' }));

    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const { apiKey, clientId, clientSecret } = secretsOf(res.text);
    expect(apiKey).toMatch(/^msa_live_/);
    expect(clientId).toMatch(/^msa_client_/);
    expect(clientSecret).toMatch(/^msa_secret_/);
    expect(res.text).toContain('Copy it now: it is shown only once.');
    expect(res.text).toContain(`<a href="${TEST_BASE_URL}/developers">Back to the developer portal</a>`);
    expect(res.text).toContain(`href="${TEST_BASE_URL}/developers#connect-from-an-agent-host"`);
    expect(res.text).not.toMatch(/<script/i);
    // The client id and secret belong to the same principal: they get a token.
    const token = await h.api
      .post('/oauth/token')
      .set(h.as())
      .set('Authorization', basicAuth(clientId!, clientSecret!))
      .type('form')
      .send({ grant_type: 'client_credentials' });
    expect(token.status).toBe(200);
  });

  it('counts against the same day quota as POST /v1/keys: the 11th creation from one address gets a 429 page with Retry-After', async () => {
    const ip = freshIp();
    for (let i = 0; i < LIMITS.keyCreationsPerIpPerDay; i++) {
      const ok = i % 2 === 0 ? await postForm(buildKeyForm({ name: `Agent ${i}` }), { ip }) : await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest({ name: `Agent ${i}` }));
      expect(ok.status).toBe(201);
    }

    const res = await postForm(buildKeyForm({ name: 'One too many' }), { ip });

    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(86_400);
    expect(res.text).toContain('The key was not created');
    expect(res.text).toContain(`One address can create ${LIMITS.keyCreationsPerIpPerDay} keys a day`);
    expect(res.text).toContain('value="One too many"');
    expect(secretsOf(res.text).apiKey).toBeUndefined();
    expect(await creationsToday(ip)).toBe(LIMITS.keyCreationsPerIpPerDay);
    const api = await h.api.post('/v1/keys').set(h.as({ ip })).send(buildKeyRequest());
    expect(api.status).toBe(429);
  });

  it('gives the form back with the message for an invalid e-mail, keeping what was typed, and counts nothing', async () => {
    const ip = freshIp();

    const res = await postForm(buildKeyForm({ name: 'Schulfest Agent', email: 'not-an-email' }), { ip });

    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).toContain('Enter a valid e-mail address, such as dev@example.org.');
    expect(res.text).toContain(`<form class="key-form" method="post" action="${TEST_BASE_URL}/developers/keys">`);
    expect(res.text).toMatch(/<input id="key-name" name="name" [^>]*value="Schulfest Agent">/);
    expect(res.text).toMatch(/<input id="key-email" name="email" type="email" [^>]*value="not-an-email" aria-invalid="true" aria-describedby="key-email-error">/);
    expect(res.text).toMatch(/<label for="key-email">[^<]+<\/label>/);
    expect(await creationsToday(ip)).toBe(0);
  });

  it('says which fields are wrong for a short name and a missing e-mail', async () => {
    const res = await postForm({ name: 'A', mode: 'sandbox' });

    expect(res.status).toBe(422);
    expect(res.text).toContain(`Enter a name of ${LIMITS.keyNameMin} to ${LIMITS.keyNameMax} characters`);
    expect(res.text).toContain('Enter a valid e-mail address');
  });

  it('writes back what was typed as text, never as markup', async () => {
    const res = await postForm(buildKeyForm({ name: '"><script>alert(1)</script>', email: 'x' }));

    expect(res.status).toBe(422);
    expect(res.text).not.toContain('<script>');
    expect(res.text).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('refuses a live key on the sandbox with a 400 page pointing at the production portal', async () => {
    const res = await postForm(buildKeyForm({ mode: 'live' }), { sandbox: true });

    expect(res.status).toBe(400);
    expect(res.text).toContain('Live keys cannot be created on the sandbox.');
    expect(res.text).toContain(`${TEST_BASE_URL}/developers#create-a-key`);
    expect(res.text).toContain(`action="${TEST_BASE_URL}/sandbox/developers/keys"`);
    expect(res.text).not.toContain('value="live"');
  });

  it('creates sandbox keys on the sandbox and links back to the sandbox portal', async () => {
    const res = await postForm(buildKeyForm({ mode: 'sandbox' }), { sandbox: true });

    expect(res.status).toBe(201);
    expect(secretsOf(res.text).apiKey).toMatch(/^msa_test_/);
    expect(res.text).toContain(`<a href="${TEST_BASE_URL}/sandbox/developers">Back to the developer portal</a>`);
  });

  it('answers a caller that prefers JSON with the credentials of POST /v1/keys', async () => {
    const res = await h.api.post('/developers/keys').set(h.as({ ip: freshIp() })).set('Accept', 'application/json').type('form').send(buildKeyForm());

    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ api_key: expect.stringMatching(/^msa_test_/), client_id: expect.stringMatching(/^msa_client_/), mode: 'sandbox', tier: 'free' });
  });

  it('answers a caller that prefers JSON with the error envelope', async () => {
    const invalid = await h.api.post('/developers/keys').set(h.as({ ip: freshIp() })).set('Accept', 'application/json').type('form').send(buildKeyForm({ email: 'nope' }));
    const live = await h.api
      .post('/developers/keys')
      .set(h.as({ ip: freshIp(), sandbox: true }))
      .set('Accept', 'application/json')
      .type('form')
      .send(buildKeyForm({ mode: 'live' }));

    expect(invalid.status).toBe(422);
    expect(invalid.headers['content-type']).toContain('application/json');
    expect(invalid.body.error).toMatchObject({ code: 'validation_failed', status: 422, fields: [{ field: 'email', message: expect.any(String) }] });
    expect(live.status).toBe(400);
    expect(live.body.error).toMatchObject({ code: 'invalid_request', fields: [{ field: 'mode', message: expect.any(String) }] });
  });

  it('answers 405 with Allow for other methods', async () => {
    const res = await h.api.get('/developers/keys').set(h.as());

    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('POST');
  });
});
