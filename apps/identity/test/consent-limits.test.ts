/*
 * The consent page's counts, driven over HTTP with its cookie and CSRF
 * token: people are counted by mailbox, each client address may bring only
 * so many new people a day, a mailbox gets only so many codes, and wrong
 * codes lock it for the day. Each test asks from client addresses of its own
 * and for mailboxes of its own, so the counts of one never reach another.
 */
import type { ConsentCodeMailJob } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthStore, digest } from '../src/oauth/store/oauth-store.js';
import { authorizeQuery, consentPath, hidden, pkce, serveClient, startDocServer, type DocServer } from './authorize-support.js';
import { freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
let docs: DocServer;
let loopbackClient: string;
const REDIRECT = 'http://127.0.0.1:4711/callback';

/** A public client registered the way anyone can (RFC 7591), from an address of its own. */
async function registerClient(app: IdentityHarness, clientName: string, redirect: string): Promise<string> {
  const res = await app.api
    .post('/oauth/register')
    .set(app.as({ ip: freshIp() }))
    .send({ client_name: clientName, redirect_uris: [redirect], token_endpoint_auth_method: 'none' });
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${res.text}`);
  return res.body.client_id as string;
}

interface Page {
  path: string;
  csrf: string;
  ip: string;
}

/** Opens a consent page for `clientId` from `ip`, as one browser. */
async function openPage(app: IdentityHarness, ip: string, clientId = loopbackClient, redirect = REDIRECT): Promise<Page & { html: string }> {
  const start = await app.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge, { redirect_uri: redirect })).set(app.as({ ip }));
  if (start.status !== 303) throw new Error(`authorize answered ${start.status}: ${start.text.slice(0, 300)}`);
  const path = consentPath(start.headers.location as string);
  const page = await app.api.get(path).set(app.as({ ip }));
  return { path, csrf: hidden(page.text, 'csrf'), ip, html: page.text };
}

function sendCode(app: IdentityHarness, page: Page, email: string) {
  return app.api.post(page.path).set(app.as({ ip: page.ip })).type('form').send({ csrf: page.csrf, email, decision: 'send_code' });
}

function approve(app: IdentityHarness, page: Page, code: string) {
  return app.api.post(page.path).set(app.as({ ip: page.ip })).type('form').send({ csrf: page.csrf, code, mode: 'live', decision: 'approve' });
}

/** Opens a page from `ip` and asks for a code to `email`. */
async function askCode(app: IdentityHarness, ip: string, email: string) {
  return sendCode(app, await openPage(app, ip), email);
}

const wrongFor = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
const mailsQueued = () => h.mailQueue.getWaitingCount();

beforeAll(async () => {
  h = await startIdentity('consent-limits');
  docs = await startDocServer();
  loopbackClient = await registerClient(h, 'Test Host', REDIRECT);
});
afterAll(async () => {
  await docs?.close();
  await h?.close();
});

describe('code e-mails per mailbox', () => {
  it('does not spend the victim\'s hourly codes on a sender past its own limit', async () => {
    const attacker = freshIp();
    // Its own hourly allowance spent on its own mailbox.
    for (let i = 0; i < 20; i++) await askCode(h, attacker, 'mallory@example.org');
    const queuedBefore = await mailsQueued();

    const refused = [];
    for (let i = 0; i < 5; i++) refused.push((await askCode(h, attacker, `victim+${i}@example.org`)).status);
    const victim = [];
    for (let i = 0; i < 5; i++) victim.push((await askCode(h, freshIp(), 'victim@example.org')).status);

    expect(refused).toEqual([429, 429, 429, 429, 429]);
    expect(victim).toEqual([303, 303, 303, 303, 303]);
    expect(await mailsQueued()).toBe(queuedBefore + 5);
  });

  it('counts x+N@ spellings of one mailbox against one hourly allowance, and mails the address as typed', async () => {
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await askCode(h, freshIp(), `Hourly+${i}@Example.org`)).status);

    expect(statuses).toEqual([303, 303, 303, 303, 303, 429]);
    expect(await h.lastConsentCode()).toMatchObject({ to: 'Hourly+4@Example.org' });
  });

  it('refuses the 11th code of the day to x+N@ spellings, and sends no e-mail for it', async () => {
    // The hourly allowance raised, as if the codes had been asked for over three hours.
    const day = await startIdentity('consent-limits-day', { consentLimits: { codesPerAddressPerHour: 20 } });
    try {
      const client = await registerClient(day, 'Test Host', REDIRECT);
      const ask = async (email: string) => sendCode(day, await openPage(day, freshIp(), client), email);
      const statuses = [];
      for (let i = 1; i <= 10; i++) statuses.push((await ask(`daily+${i}@example.org`)).status);
      const queued = await day.mailQueue.getWaitingCount();

      const eleventh = await ask('daily+11@example.org');

      expect(statuses).toEqual(Array(10).fill(303));
      expect(eleventh.status).toBe(429);
      expect(eleventh.text).toContain('Für diese Adresse wurden heute schon zu viele Codes angefordert.');
      expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
      expect(await day.mailQueue.getWaitingCount()).toBe(queued);
    } finally {
      await day.close();
    }
  });
});

describe('wrong codes', () => {
  it('locks the mailbox for the day after 15 wrong codes, also on a new page and for the right code', async () => {
    const pages: { page: Page; code: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const page = await openPage(h, freshIp());
      expect((await sendCode(h, page, `lock+${i}@example.org`)).status).toBe(303);
      pages.push({ page, code: (await h.lastConsentCode())!.code });
    }

    const answers: number[] = [];
    for (const { page, code } of pages.slice(0, 3)) for (let i = 0; i < 5; i++) answers.push((await approve(h, page, wrongFor(code))).status);
    const right = await approve(h, pages[3]!.page, pages[3]!.code);
    const queued = await mailsQueued();
    const fresh = await askCode(h, freshIp(), 'LOCK@example.org');

    expect(answers).toEqual([...Array(14).fill(422), 429]);
    expect(right.status).toBe(429);
    expect(right.headers.location).toBeUndefined();
    expect(right.text).toContain('zu oft ein falscher Code eingegeben');
    expect(fresh.status).toBe(429);
    expect(fresh.text).toContain('zu oft ein falscher Code eingegeben');
    expect(await mailsQueued()).toBe(queued);
  });

  it('keeps counting the tries of a code when a restart comes in under a guess in flight', async () => {
    const store = createOAuthStore(h.redis.redis, h.redis.prefix);
    const page = await openPage(h, freshIp());
    await sendCode(h, page, 'restart@example.org');
    const { code } = (await h.lastConsentCode())!;
    const id = page.path.split('/').pop()!;
    // What a guess sent now has read: the interaction with this code.
    const inFlight = (await store.findInteraction(id))!;
    for (let i = 0; i < 5; i++) await approve(h, page, wrongFor(code));

    const restart = await h.api.post(page.path).set(h.as({ ip: page.ip })).type('form').send({ csrf: page.csrf, decision: 'restart' });
    // The guess in flight goes on with the interaction as it read it.
    await store.updateInteraction(id, inFlight);
    const guess = await approve(h, page, code);

    expect(restart.status).toBe(303);
    expect(guess.status).toBe(422);
    expect(guess.headers.location).toBeUndefined();
    expect(guess.text).toContain('abgelaufen oder wurde zu oft falsch eingegeben');
  });

  it('gives a right code its try back: the approval does not count as a wrong code', async () => {
    const page = await openPage(h, freshIp());
    await sendCode(h, page, 'right@example.org');
    const { code } = (await h.lastConsentCode())!;
    await approve(h, page, wrongFor(code));

    const approved = await approve(h, page, code);

    expect(approved.status).toBe(303);
    expect(new URL(approved.headers.location as string).searchParams.get('code')).toBeTruthy();
    const store = createOAuthStore(h.redis.redis, h.redis.prefix);
    expect(await store.wrongCodes(digest('right@example.org'))).toBe(1);
  });
});

describe('new people per client address', () => {
  it('refuses an 11th new person from one address without e-mailing them, and lets a counted person go on', async () => {
    const ip = freshIp();
    const statuses = [];
    for (let i = 1; i <= 10; i++) statuses.push((await askCode(h, ip, `person${i}@people.example`)).status);
    const queued = await mailsQueued();

    const eleventh = await askCode(h, ip, 'person11@people.example');
    const queuedAfterRefusal = await mailsQueued();
    const again = await askCode(h, ip, 'Person1+again@people.example');

    expect(statuses).toEqual(Array(10).fill(303));
    expect(eleventh.status).toBe(429);
    expect(eleventh.text).toContain('zu viele verschiedene Personen angemeldet');
    expect(queuedAfterRefusal).toBe(queued);
    expect(again.status).toBe(303);
    expect(await h.lastConsentCode()).toMatchObject({ to: 'Person1+again@people.example' });
  });

  it('counts an IPv6 /64 as one address', async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    for (let i = 1; i <= 10; i++) await askCode(h, `${prefix}::${i}`, `v6-${i}@people.example`);

    const eleventh = await askCode(h, `${prefix}::ffff`, 'v6-11@people.example');

    expect(eleventh.status).toBe(429);
  });
});

describe('who asks, and where the approval goes', () => {
  it('shows a client registered as "Claude" with its redirect host and the self-declared mark, on the page and in the e-mail', async () => {
    const claude = await registerClient(h, 'Claude', 'https://evil.example/cb');
    const page = await openPage(h, freshIp(), claude, 'https://evil.example/cb');
    const english = await h.api.get(`${page.path}?lang=en`).set(h.as({ ip: page.ip }));

    await sendCode(h, page, 'phished@example.org');

    expect(page.html).toContain('<strong>Claude</strong> <span class="muted">(selbst angegeben, nicht geprüft)</span>');
    expect(page.html).toContain('Die Freigabe geht an: <strong>evil.example</strong>');
    expect(english.text).toContain('(self-declared, not verified)');
    expect(english.text).toContain('The approval goes to: <strong>evil.example</strong>');
    const [job] = await h.mailQueue.getJobs(['waiting'], 0, 0, false);
    expect(job!.data as ConsentCodeMailJob).toMatchObject({
      client_name: 'Claude',
      client_name_self_declared: true,
      approval_target: { kind: 'host', value: 'evil.example' },
    });
  });

  it('names an app on the person\'s own device for a loopback redirect', async () => {
    const page = await openPage(h, freshIp());

    expect(page.html).toContain('Die Freigabe geht an: <strong>eine Anwendung auf Ihrem eigenen Gerät (127.0.0.1)</strong>');
  });

  it('writes a name with markup and direction overrides as one line of escaped text', async () => {
    const tricky = await registerClient(h, '<img src=x onerror=alert(1)>\u202Eelpmaxe.live', REDIRECT);

    const page = await openPage(h, freshIp(), tricky);

    expect(page.html).not.toContain('<img');
    expect(page.html).not.toContain('\u202E');
    // The page kit's escapeHtml writes named entities.
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt; elpmaxe.live');
  });

  it('shows no self-declared mark for a client the operator verified', async () => {
    const verified = await startIdentity('consent-limits-verified', { verifiedClientHosts: ['127.0.0.1'] });
    try {
      const clientId = serveClient(docs, '/verified-client.json');

      const page = await openPage(verified, freshIp(), clientId);

      expect(page.html).toContain('<strong>Test Host</strong> möchte');
      expect(page.html).not.toContain('selbst angegeben');
    } finally {
      await verified.close();
    }
  });
});
