// The connections the gateway holds: its pool to a service while a body it
// read waits for a socket, the client's connection after a refusal decided
// before a large body arrived, and how many connections one address may keep
// open. Raw sockets, so a test controls when each byte arrives.
import http from 'node:http';
import net from 'node:net';
import { closeServer, listen, loadConfig, type Listening } from '@msa/service-kit';
import { createTestRedis, TEST_INTERNAL_SECRET, testLogger, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { GatewayEnv } from '../src/config.js';
import { startService, type RunningGateway } from '../src/server.js';
import { BASE, closedPortUrl, startServer, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface RawConnection {
  socket: net.Socket;
  /** The first whole answer (by its Content-Length), or what arrived before the connection closed. */
  answer: Promise<RawResponse>;
  /** Resolves when the connection has closed, from either side. */
  closed: Promise<void>;
}

function parseAnswer(raw: string): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  const body = raw.slice(end + 4);
  if (body.length < Number(headers['content-length'] ?? 0)) return undefined;
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

/** A connection to `port`, open once the promise resolves. */
function connect(port: number): Promise<RawConnection> {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const answer = new Promise<RawResponse>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const parsed = parseAnswer(received);
      if (parsed) resolve(parsed);
    });
    void closed.then(() => resolve(parseAnswer(received) ?? { status: 0, headers: {}, body: received }));
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, answer, closed }));
    socket.once('error', reject);
  });
}

function head(method: string, path: string, headers: Record<string, string | number>): string {
  const lines = Object.entries({ Host: 'api.test.local', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `${method} ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** Within `ms`, or a rejection naming what did not happen. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, pause(ms).then(() => Promise.reject(new Error(`${what} did not happen within ${ms} ms`)))]);
}

describe('gateway with a one-socket pool to its services', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let gateway: Listening;
  let upstream: { url: string; server: http.Server };
  /** Answers of requests the stand-in service holds until the test releases them. */
  const held: Array<() => void> = [];
  let holdNext = false;

  beforeAll(async () => {
    tr = await createTestRedis('gateway-connections-pool');
    identity = await startTestIdentity(tr);
    // Echoes every body it gets; holds a request while `holdNext` is set.
    upstream = await startServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
        const answer = () => {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ received: Buffer.concat(chunks).toString('utf8') }));
        };
        if (!holdNext) return answer();
        holdNext = false;
        held.push(answer);
      });
    });
    const app = createApp(testGatewayDeps(tr, identity, upstream.url, {}, { upstreamSockets: 1, upstreamTimeoutMs: 10_000 }));
    gateway = await listen(app, 0, { host: '127.0.0.1', publicBaseUrl: BASE });
  });

  afterAll(async () => {
    if (gateway) await closeServer(gateway.server, { forceAfterMs: 100 });
    upstream?.server.closeAllConnections();
    upstream?.server.close();
    await identity?.close();
    await tr?.cleanup();
  });

  it('sends a POST whose body arrived after its headers once the socket is free, and answers 200 (not 502)', async () => {
    holdNext = true;
    const slow = fetch(`${gateway.url}/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"slow":true}' });
    await vi.waitFor(() => expect(held).toHaveLength(1), { timeout: 5_000, interval: 20 });
    const body = JSON.stringify({ name: 'split', email: 'agent@example.org' });
    const client = await connect(gateway.port);

    client.socket.write(head('POST', '/v1/keys', { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }));
    // The body comes in a later packet: the gateway reads it, then waits for the pool's one socket.
    await pause(200);
    client.socket.write(body);
    await pause(200);
    held.shift()!();
    const answer = await client.answer;

    expect((await slow).status).toBe(200);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ received: body });
    client.socket.destroy();
  });
});

describe('gateway connections per address and refused bodies', () => {
  const PER_ADDRESS = 3;
  let tr: TestRedis;
  let gateway: RunningGateway;

  beforeAll(async () => {
    tr = await createTestRedis('gateway-connections-cap');
    const nowhere = await closedPortUrl();
    const config = loadConfig(GatewayEnv, {
      GATEWAY_PORT: '0',
      GATEWAY_ADMIN_PORT: '0',
      BIND_ADDRESS: '127.0.0.1',
      PUBLIC_BASE_URL: BASE,
      INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
      REDIS_URL: tr.url,
      REDIS_KEY_PREFIX: tr.prefix,
      CATALOG_URL: nowhere,
      SHOPS_URL: nowhere,
      REQUESTS_URL: nowhere,
      IDENTITY_URL: nowhere,
      MCP_URL: nowhere,
      CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      LOG_LEVEL: 'silent',
    });
    gateway = await startService(config, { logger: testLogger('gateway') });
  });

  afterAll(async () => {
    await gateway?.close();
    await tr?.cleanup();
  });

  it(`answers the connection past ${PER_ADDRESS} open from one address 429 and closes it, and admits one again once another closed`, async () => {
    const idle = await Promise.all(Array.from({ length: PER_ADDRESS }, () => connect(gateway.port)));

    const extra = await connect(gateway.port);
    const refused = await within(extra.answer, 5_000, 'the refusal');
    await within(extra.closed, 5_000, 'the close');

    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');
    expect(JSON.parse(refused.body)).toMatchObject({ error: { code: 'rate_limited', status: 429 } });
    // The idle ones are still served.
    idle[0]!.socket.write(head('GET', '/healthz', {}));
    expect((await within(idle[0]!.answer, 5_000, 'the answer')).status).toBe(200);

    idle[1]!.socket.destroy();
    await vi.waitFor(
      async () => {
        const next = await connect(gateway.port);
        next.socket.write(head('GET', '/healthz', { Connection: 'close' }));
        expect((await within(next.answer, 5_000, 'the answer')).status).toBe(200);
      },
      { timeout: 5_000, interval: 50 },
    );
    for (const c of idle) c.socket.destroy();
  });

  it('closes the connection after refusing a 1 MB upload of which 1 kB arrived, instead of waiting for the rest', async () => {
    const client = await connect(gateway.port);

    client.socket.write(head('POST', '/v1/shop-requests', { 'Content-Type': 'application/json', 'Content-Length': 1024 * 1024 }));
    client.socket.write('x'.repeat(1024));
    const answer = await within(client.answer, 5_000, 'the answer');
    // The request timeout would close it after 25 s; the rest of the body never comes.
    await within(client.closed, 5_000, 'the close');

    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('close');
  });

  it('keeps the connection after refusing a small body that arrived whole', async () => {
    const client = await connect(gateway.port);
    const body = '{"shop_name":"x"}';

    client.socket.write(head('POST', '/v1/shop-requests', { 'Content-Type': 'application/json', 'Content-Length': body.length }) + body);
    const answer = await within(client.answer, 5_000, 'the answer');

    expect(answer.status).toBe(401);
    expect(answer.headers.connection).toBe('keep-alive');
    client.socket.destroy();
  });
});
