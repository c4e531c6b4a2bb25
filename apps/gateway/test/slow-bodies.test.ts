// Callers who hold requests open: a body trickled one byte at a time,
// headers that never end, many slow uploads at once, and MCP batches that
// carry many calls in one request. Real sockets against the gateway, the
// real catalog and identity behind it; the requests and mcp services are
// counting stand-ins, so a test can tell that nothing reached them.
import http from 'node:http';
import { CatalogEnv, startService as startCatalog } from '@msa/catalog';
import { closeServer, listen, loadConfig, type Listening, type RunningService } from '@msa/service-kit';
import { buildContext, createTestRedis, TEST_INTERNAL_SECRET, testLogger, trickle, type RawAnswer, type TestRedis, type Trickle } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { BASE, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

function slowPost(port: number, path: string, headers: Record<string, string>, contentLength = 1_000): Trickle {
  const lines = Object.entries({ Host: 'api.test.local', 'Content-Type': 'application/json', 'Content-Length': String(contentLength), ...headers }).map(([k, v]) => `${k}: ${v}`);
  return trickle(port, `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`);
}

function errorOf(answer: RawAnswer): { code: string; status: number } {
  return (JSON.parse(answer.body) as { error: { code: string; status: number } }).error;
}

/** A stand-in service that counts what reaches it and answers every request with an empty JSON-RPC result. */
async function countingService(): Promise<{ url: string; server: http.Server; received: string[] }> {
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    req.resume().on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, received };
}

const BODY_DEADLINE_MS = 1_000;
const PER_PRINCIPAL = 3;
const PER_ADDRESS = 2;

describe('gateway against callers who hold requests open', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let catalog: RunningService;
  let stub: Awaited<ReturnType<typeof countingService>>;
  let gateway: Listening;

  beforeAll(async () => {
    tr = await createTestRedis('gateway-slow-bodies');
    identity = await startTestIdentity(tr);
    catalog = await startCatalog(
      loadConfig(CatalogEnv, { CATALOG_PORT: '0', CATALOG_ADMIN_PORT: '0', PUBLIC_BASE_URL: BASE, INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'silent' }),
      { logger: testLogger('catalog') },
    );
    stub = await countingService();
    const app = createApp(
      testGatewayDeps(
        tr,
        identity,
        { catalog: catalog.url, shops: stub.url, requests: stub.url, identity: identity.service.url, mcp: stub.url },
        { principal: 1_000, anonymous: 10, mcpHandshake: 240 },
        {
          trustProxy: 'true',
          bodyDeadlineMs: BODY_DEADLINE_MS,
          // The pause timer must not be what cuts a steady trickle.
          clientBodyTimeoutMs: 10_000,
          inFlight: { perPrincipal: PER_PRINCIPAL, perAddress: PER_ADDRESS },
        },
      ),
    );
    gateway = await listen(app, 0, { host: '127.0.0.1', publicBaseUrl: BASE, timeouts: { headersTimeoutMs: 500, checkIntervalMs: 100 } });
  });

  afterAll(async () => {
    if (gateway) await closeServer(gateway.server, { forceAfterMs: 100 });
    stub?.server.closeAllConnections();
    stub?.server.close();
    await catalog?.close();
    await identity?.close();
    await tr?.cleanup();
  });

  async function createKey(name: string): Promise<{ api_key: string; client_id: string }> {
    const created = await identity.client.raw.send('POST', '/v1/keys', buildContext({ ip: '198.51.100.76' }), {
      body: { name, email: 'agent@example.org', mode: 'sandbox', scopes: ['catalog:read', 'requests:write'] },
    });
    expect(created.status).toBe(201);
    return created.body as { api_key: string; client_id: string };
  }

  const read = (apiKey: string) => fetch(`${gateway.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${apiKey}` } });

  /** Waits until the principal's per-minute count in Redis shows `n` requests admitted. */
  async function admitted(clientId: string, n: number): Promise<void> {
    await vi.waitFor(async () => expect(Number(await tr.redis.get(`${tr.prefix}rl:p:p:${clientId}`))).toBeGreaterThanOrEqual(n), { timeout: 5_000, interval: 20 });
  }

  /** Requests from `ip` the anonymous minute has counted (its key holds the address, however the limits write it). */
  async function anonymousCount(ip: string): Promise<number> {
    const [key] = await tr.redis.keys(`${tr.prefix}rl:a:*${ip}*`);
    return key ? Number(await tr.redis.get(key)) : 0;
  }

  it('answers a body trickled one byte at a time with 408 at the body deadline, though every pause is short, and takes no connection to the service', async () => {
    const key = await createKey('trickler');
    stub.received.length = 0;

    const answer = await slowPost(gateway.port, '/v1/shop-requests', { Authorization: `Bearer ${key.api_key}` }).answer;

    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(errorOf(answer)).toMatchObject({ code: 'request_timeout', status: 408 });
    // Cut while the body was still arriving: the deadline, not its end, closed it.
    expect(answer.bytesSent).toBeLessThan(1_000);
    expect(stub.received).toEqual([]);
  });

  it('cuts a client that trickles its headers with 408 once the headers timeout passes', async () => {
    const answer = await trickle(gateway.port, 'GET /v1/products HTTP/1.1\r\nHost: api.test.local\r\nX-Slow: ').answer;

    expect(answer.status).toBe(408);
    expect(errorOf(answer)).toMatchObject({ code: 'request_timeout', status: 408 });
  });

  it(`refuses a principal's request past ${PER_PRINCIPAL} open at once with 429 and Retry-After, while another principal reads`, async () => {
    const [slow, other] = await Promise.all([createKey('slow'), createKey('other')]);
    const uploads = Array.from({ length: PER_PRINCIPAL }, () => slowPost(gateway.port, '/v1/shop-requests', { Authorization: `Bearer ${slow.api_key}` }));
    await admitted(slow.client_id, PER_PRINCIPAL);

    const refused = await read(slow.api_key);
    const otherRead = await read(other.api_key);

    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited', status: 429 } });
    expect(otherRead.status).toBe(200);
    uploads.forEach((u) => u.abort());
  });

  it('gives the slot back when an upload gets 408 or the client aborts it, so the next request is admitted', async () => {
    const key = await createKey('returns');
    const uploads = Array.from({ length: PER_PRINCIPAL }, () => slowPost(gateway.port, '/v1/shop-requests', { Authorization: `Bearer ${key.api_key}` }));
    await admitted(key.client_id, PER_PRINCIPAL);
    expect((await read(key.api_key)).status).toBe(429);

    uploads[0]!.abort();
    const answers = await Promise.all(uploads.slice(1).map((u) => u.answer));

    expect(answers.map((a) => a.status)).toEqual([408, 408]);
    await vi.waitFor(async () => expect((await read(key.api_key)).status).toBe(200), { timeout: 5_000, interval: 50 });
  });

  it(`counts callers without credentials by address: ${PER_ADDRESS} slow key creations at once, then 429 for that address only`, async () => {
    const uploads = Array.from({ length: PER_ADDRESS }, () => slowPost(gateway.port, '/v1/keys', { 'X-Forwarded-For': '203.0.113.50' }));
    await vi.waitFor(async () => expect(await anonymousCount('203.0.113.50')).toBe(PER_ADDRESS), { timeout: 5_000, interval: 20 });

    const refused = await fetch(`${gateway.url}/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.50' }, body: '{}' });
    const elsewhere = await fetch(`${gateway.url}/v1/products?limit=1`, { headers: { 'x-forwarded-for': '203.0.113.51' } });

    expect(refused.status).toBe(429);
    expect(elsewhere.status).toBe(200);
    uploads.forEach((u) => u.abort());
  });

  describe('MCP batches', () => {
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_products', arguments: { q: 'shirt' } } });
    const batch = (n: number) => Array.from({ length: n }, (_, i) => call(i + 1));
    const post = (body: unknown, ip: string) =>
      fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify(body) });

    it('charges a batch of k messages k requests of the minute', async () => {
      const first = await post(batch(4), '198.51.100.20');
      const single = await post(call(9), '198.51.100.20');

      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit')).toMatch(/^"anonymous-per-minute";r=6;/);
      expect(single.headers.get('ratelimit')).toMatch(/^"anonymous-per-minute";r=5;/);
    });

    it('refuses a batch larger than what is left of the minute whole with 429, sends nothing on, and spends nothing', async () => {
      await post(batch(7), '198.51.100.21');
      stub.received.length = 0;

      const refused = await post(batch(4), '198.51.100.21');
      const fits = await post(batch(3), '198.51.100.21');

      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await refused.json()).toMatchObject({ error: { code: 'rate_limited', message: expect.stringContaining('batch of 4 messages') } });
      expect(fits.status).toBe(200);
      expect(fits.headers.get('ratelimit')).toMatch(/^"anonymous-per-minute";r=0;/);
      expect(stub.received).toEqual(['POST /mcp']);
    });
  });
});
