// What one caller can make /oauth/authorize wait for and store through
// Client ID Metadata Documents: document servers that never answer or
// trickle, many requests at once from one address and from many, a failing
// URL asked for again and again, and a new query string on every request.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freshIp, startIdentity, type IdentityHarness, type IdentityOptions } from './identity-app.js';
import { authorizeQuery, pkce } from './authorize-support.js';

const REDIRECT = 'http://127.0.0.1:4711/callback';

/**
 * A document server on loopback that answers every path with a valid
 * document for its own URL, or holds each request until `release()`, or
 * answers with `behave` instead; it counts what it was asked for.
 */
async function startDocuments(mode: { hold?: boolean; behave?: (req: IncomingMessage, res: ServerResponse) => void } = {}) {
  const hits: string[] = [];
  const held: { req: IncomingMessage; res: ServerResponse }[] = [];
  let origin = '';
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const clientId = `${origin}${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ client_id: clientId, client_name: 'Docs', redirect_uris: [REDIRECT] }));
  };
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (mode.behave) mode.behave(req, res);
    else if (mode.hold) held.push({ req, res });
    else answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    hits,
    url: (path: string) => `${origin}${path}`,
    /** Answers every held request with its document. */
    release() {
      for (const { req, res } of held.splice(0)) if (!res.destroyed) answer(req, res);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
type Documents = Awaited<ReturnType<typeof startDocuments>>;

const opened: { close(): Promise<void> }[] = [];
async function identity(name: string, opts: IdentityOptions = {}): Promise<IdentityHarness> {
  const h = await startIdentity(name, opts);
  opened.push(h);
  return h;
}
async function documents(mode: Parameters<typeof startDocuments>[0] = {}): Promise<Documents> {
  const d = await startDocuments(mode);
  opened.unshift(d);
  return d;
}
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

function authorize(h: IdentityHarness, clientId: string, ip: string, overrides: Record<string, string | undefined> = {}) {
  return h.api.get('/oauth/authorize').query(authorizeQuery(clientId, pkce().challenge, overrides)).set(h.as({ ip }));
}

async function until(condition: () => boolean, what: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The identity app on a port of its own, for many requests at once without a server each. */
async function listen(h: IdentityHarness): Promise<{ origin: string; close(): Promise<void> }> {
  const server = h.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const handle = {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  opened.unshift(handle);
  return handle;
}

describe('fetching a client metadata document', () => {
  it.each<[string, (req: IncomingMessage, res: ServerResponse) => void]>([
    ['never answers', () => undefined],
    [
      'trickles its body a byte at a time',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 300);
        res.on('close', () => clearInterval(timer));
      },
    ],
  ])('gives up after 2 s on a server that %s and shows the error page', async (_label, behave) => {
    const h = await identity('cimd-timeout', { clientMetadataLimits: { fetchTimeoutMs: 2_000 } });
    const docs = await documents({ behave });

    const res = await authorize(h, docs.url('/slow.json'), freshIp());

    expect(res.status).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toContain('no answer within 2000 ms');
  });

  it('lets one address wait for one document at a time and answers its other requests 429 at once', async () => {
    const h = await identity('cimd-per-address', { clientMetadataLimits: { fetchTimeoutMs: 20_000 } });
    const docs = await documents({ hold: true });
    const ip = freshIp();

    const first = authorize(h, docs.url('/a.json'), ip).then((r) => r);
    await until(() => docs.hits.length === 1, 'the first fetch reached the document server');
    const others = await Promise.all(
      ['/b.json', '/c.json', '/d.json', '/e.json'].map((path, i) => {
        const req = authorize(h, docs.url(path), ip);
        return i === 0 ? req.set('Accept', 'application/json') : req;
      }),
    );
    docs.release();
    const firstRes = await first;

    expect(others.map((r) => r.status)).toEqual([429, 429, 429, 429]);
    expect(others.every((r) => /^\d+$/.test(String(r.headers['retry-after'])))).toBe(true);
    expect(others[0]!.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(others[1]!.headers['content-type']).toMatch(/^text\/html/);
    expect(docs.hits).toEqual(['/a.json']);
    expect(firstRes.status).toBe(303);
  });

  it('shares one fetch among concurrent requests for one URL from several addresses', async () => {
    const h = await identity('cimd-one-flight', { clientMetadataLimits: { fetchTimeoutMs: 20_000 } });
    const docs = await documents({ hold: true });
    const clientId = docs.url('/shared.json');

    const first = authorize(h, clientId, freshIp()).then((r) => r);
    await until(() => docs.hits.length === 1, 'the first fetch reached the document server');
    const rest = [authorize(h, clientId, freshIp()).then((r) => r), authorize(h, clientId, freshIp()).then((r) => r)];
    await new Promise((resolve) => setTimeout(resolve, 200));
    docs.release();
    const answers = await Promise.all([first, ...rest]);

    expect(answers.map((r) => r.status)).toEqual([303, 303, 303]);
    expect(docs.hits).toEqual(['/shared.json']);
  });

  it('answers 429 at once past the fetches a process runs together, with 200 slow documents asked for', async () => {
    const h = await identity('cimd-global', { clientMetadataLimits: { fetchTimeoutMs: 25_000, fetchesInFlight: 32 } });
    const docs = await documents({ hold: true });
    const app = await listen(h);
    const statuses: number[] = [];

    const requests = Array.from({ length: 200 }, (_, i) => {
      const query = new URLSearchParams(authorizeQuery(docs.url(`/many-${i}.json`), pkce().challenge));
      return fetch(`${app.origin}/oauth/authorize?${query}`, { headers: h.as({ ip: freshIp() }), redirect: 'manual' }).then(async (r) => {
        await r.arrayBuffer();
        statuses.push(r.status);
        return r.status;
      });
    });
    // Answered while the 32 fetches still hang (they would wait 25 s): refused, not queued.
    await until(() => statuses.length >= 168, '168 refusals while 32 fetches hang', 15_000);
    const hitsWhileHeld = docs.hits.length;
    docs.release();
    const all = await Promise.all(requests);

    expect(statuses.slice(0, 168).every((s) => s === 429)).toBe(true);
    expect(hitsWhileHeld).toBe(32);
    expect(all.filter((s) => s === 303)).toHaveLength(32);
    expect(all.filter((s) => s === 429)).toHaveLength(168);
  });

  it('remembers a failed fetch for minutes, so the document server sees one request', async () => {
    const h = await identity('cimd-failure');
    const docs = await documents({ behave: (_req, res) => res.writeHead(500).end() });
    const clientId = docs.url('/broken.json');

    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await authorize(h, clientId, freshIp()));
    const failureKeys = await h.redis.redis.keys(`${h.redis.prefix}cimd-fail:*`);
    const ttl = await h.redis.redis.ttl(failureKeys[0]!);

    expect(answers.map((r) => r.status)).toEqual([400, 400, 400, 400]);
    expect(answers.every((r) => r.text.includes('HTTP 500'))).toBe(true);
    expect(docs.hits).toEqual(['/broken.json']);
    expect(failureKeys).toHaveLength(1);
    expect(ttl).toBeGreaterThan(60);
    expect(ttl).toBeLessThanOrEqual(300);
  });

  it('refuses new query strings past the per-address cap without fetching them', async () => {
    const h = await identity('cimd-address-urls', { clientMetadataLimits: { urlsPerAddressPerHour: 3 } });
    const docs = await documents();
    const ip = freshIp();

    const statuses = [];
    for (let v = 1; v <= 4; v++) statuses.push((await authorize(h, docs.url(`/q.json?v=${v}`), ip)).status);
    const json = await authorize(h, docs.url('/q.json?v=5'), ip).set('Accept', 'application/json');
    const cachedAgain = await authorize(h, docs.url('/q.json?v=1'), ip);
    const otherAddress = await authorize(h, docs.url('/q.json?v=6'), freshIp());

    expect(statuses).toEqual([303, 303, 303, 429]);
    expect(json.status).toBe(429);
    expect(json.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('3 new client metadata document URLs') });
    expect(Number(json.headers['retry-after'])).toBeGreaterThan(3000);
    expect(cachedAgain.status).toBe(303);
    expect(otherAddress.status).toBe(303);
    expect(docs.hits).toEqual(['/q.json?v=1', '/q.json?v=2', '/q.json?v=3', '/q.json?v=6']);
  });

  it('refuses new URLs of one host past the per-host cap whoever asks, except for a verified host', async () => {
    const h = await identity('cimd-host-urls', { clientMetadataLimits: { urlsPerHostPerHour: 2 } });
    const docs = await documents();
    const verified = await identity('cimd-host-verified', { clientMetadataLimits: { urlsPerHostPerHour: 2 }, verifiedClientHosts: ['127.0.0.1'] });

    const statuses = [];
    for (let v = 1; v <= 3; v++) statuses.push((await authorize(h, docs.url(`/h.json?v=${v}`), freshIp())).status);
    const hitsBefore = docs.hits.length;
    const exempt = [];
    for (let v = 1; v <= 3; v++) exempt.push((await authorize(verified, docs.url(`/h.json?w=${v}`), freshIp())).status);

    expect(statuses).toEqual([303, 303, 429]);
    expect(hitsBefore).toBe(2);
    expect(exempt).toEqual([303, 303, 303]);
  });

  it('caches a document only once its authorization request passed the redirect check', async () => {
    const h = await identity('cimd-cache-after-check');
    const docs = await documents();
    const clientId = docs.url('/checked.json');

    const refused = await authorize(h, clientId, freshIp(), { redirect_uri: 'https://evil.example/cb' });
    const afterRefusal = await h.redis.redis.keys(`${h.redis.prefix}cimd:*`);
    const accepted = await authorize(h, clientId, freshIp());
    const afterAcceptance = await h.redis.redis.keys(`${h.redis.prefix}cimd:*`);

    expect(refused.status).toBe(400);
    expect(afterRefusal).toEqual([]);
    expect(accepted.status).toBe(303);
    expect(afterAcceptance).toHaveLength(1);
    expect(docs.hits).toEqual(['/checked.json', '/checked.json']);
  });
});
