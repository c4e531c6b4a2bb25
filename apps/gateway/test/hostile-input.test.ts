// What a hostile or broken client does to the gateway over real sockets: an
// oversized credential, an upload that stops halfway, a body the service
// refuses before reading it. The service behind is built from the kit, so
// its early refusals are the real ones.
import { connect } from 'node:net';
import { BOUNDS } from '@msa/contracts';
import {
  closeServer,
  createServiceApp,
  finishServiceApp,
  listen,
  type Listening,
} from '@msa/service-kit';
import { createTestRedis, dechunk, TEST_INTERNAL_SECRET, testLogger, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import type { KeyResolver } from '../src/auth/key-resolver.js';
import { BASE, credentialChecks, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte written to the connection's close. */
  elapsedMs: number;
}

/** Writes `head` (and `body` chunks, if any) and reads until the server closes the connection. */
function exchange(port: number, head: string, writeBody?: (socket: ReturnType<typeof connect>) => void): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // The server may close while we still write; the answer is what it sent before.
      if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') reject(err);
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [rawHead = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = rawHead.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), elapsedMs: Date.now() - started });
    });
    socket.write(head);
    writeBody?.(socket);
  });
}


async function waitUntil(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function envelopeOf(answer: RawAnswer): { error: { code: string; status: number } } {
  const body = answer.headers['transfer-encoding'] === 'chunked' ? dechunk(answer.body) : answer.body;
  return JSON.parse(body) as { error: { code: string; status: number } };
}

describe('gateway under hostile input', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let upstream: Listening;
  let gateway: Listening;
  let patient: Listening;
  const keyLookups: string[] = [];
  const upstreamBodies: unknown[] = [];
  const streams = { opened: 0, closed: 0 };

  beforeAll(async () => {
    tr = await createTestRedis('gateway-hostile');
    identity = await startTestIdentity(tr);
    const logger = testLogger('identity');
    const service = createServiceApp({ service: 'identity', logger, publicBaseUrl: BASE, internalAuthSecret: TEST_INTERNAL_SECRET });
    service.post('/v1/keys', (req, res) => {
      upstreamBodies.push(req.body);
      res.status(201).json({ ok: true });
    });
    // An answer that never ends, like an event stream.
    service.get('/.well-known/jwks.json', (_req, res) => {
      streams.opened++;
      res.on('close', () => streams.closed++);
      res.setHeader('content-type', 'application/json');
      res.write('{"keys":[');
    });
    upstream = await listen(finishServiceApp(service, { logger, publicBaseUrl: BASE }), 0, { host: '127.0.0.1', publicBaseUrl: BASE });
    // The real resolver, watched: which keys reach identity.
    const real = credentialChecks(identity.client).resolveKey;
    const resolveKey: KeyResolver = Object.assign((...args: Parameters<KeyResolver>) => {
      keyLookups.push(args[0]);
      return real(...args);
    }, { fresh: real.fresh });
    const app = createApp(
      testGatewayDeps(tr, identity, upstream.url, { principal: 10_000, anonymous: 10_000, failedAuth: 10_000 }, {
        upstreamTimeoutMs: 5_000,
        clientBodyTimeoutMs: 300,
        resolveKey,
      }),
    );
    gateway = await listen(app, 0, { host: '127.0.0.1', publicBaseUrl: BASE });
    // A service deadline shorter than the client's.
    const patientApp = createApp(testGatewayDeps(tr, identity, upstream.url, { principal: 10_000, anonymous: 10_000 }, { upstreamTimeoutMs: 100, clientBodyTimeoutMs: 5_000 }));
    patient = await listen(patientApp, 0, { host: '127.0.0.1', publicBaseUrl: BASE });
  });

  afterAll(async () => {
    if (gateway) await closeServer(gateway.server, { forceAfterMs: 100 });
    if (patient) await closeServer(patient.server, { forceAfterMs: 100 });
    if (upstream) await closeServer(upstream.server, { forceAfterMs: 100 });
    await identity?.close();
    await tr?.cleanup();
  });

  it('answers a too-long API key with 401 and WWW-Authenticate, and never asks identity', async () => {
    const key = `msa_live_${'a'.repeat(BOUNDS.apiKeyMaxLength)}`;

    const res = await fetch(`${gateway.url}/v1/products`, { headers: { authorization: `Bearer ${key}` } });

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(keyLookups).toEqual([]);
  });

  it('answers every key length from 201 to 4096 characters with 401, never 500', async () => {
    for (const length of [201, 1_000, 4_096]) {
      const res = await fetch(`${gateway.url}/v1/me`, { headers: { 'x-api-key': `msa_test_${'b'.repeat(length - 9)}` } });

      expect(res.status, `length ${length}`).toBe(401);
    }
    expect(keyLookups).toEqual([]);
  });

  it('answers an upload that stops halfway with 408 request_timeout and closes the connection', async () => {
    const head =
      'POST /v1/keys HTTP/1.1\r\nHost: api.test.local\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n';

    const answer = await exchange(gateway.port, head);

    expect(answer.status).toBe(408);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers.connection).toBe('close');
    expect(envelopeOf(answer).error).toMatchObject({ code: 'request_timeout', status: 408 });
    expect(upstreamBodies).toEqual([]);
  });

  it.each([
    ['16 kB chunks, slowly', 16 * 1024, 100, 'keep-alive'],
    ['1 MB chunks at once', 1024 * 1024, 20, 'keep-alive'],
    ['1 MB chunks at once, Connection: close', 1024 * 1024, 20, 'close'],
  ])('relays a service refusing a streamed body early (415) as 415, not 502: %s', async (_name, chunkBytes, chunks, connection) => {
    const head = `POST /v1/keys HTTP/1.1\r\nHost: api.test.local\r\nContent-Type: text/plain\r\nConnection: ${connection}\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = 'x'.repeat(chunkBytes);

    const answer = await exchange(gateway.port, head, (socket) => {
      // Keeps sending after the service has answered; the gateway closes the connection.
      let sent = 0;
      const timer = setInterval(() => {
        if (socket.destroyed || sent++ >= chunks) {
          clearInterval(timer);
          if (!socket.destroyed) socket.end('0\r\n\r\n');
          return;
        }
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      }, 5);
    });

    expect(answer.status).toBe(415);
    expect(envelopeOf(answer).error).toMatchObject({ code: 'unsupported_media_type', status: 415 });
  });

  it('still proxies a whole upload after those', async () => {
    const res = await fetch(`${gateway.url}/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after' }),
    });

    expect(res.status).toBe(201);
    expect(upstreamBodies).toEqual([{ name: 'after' }]);
  });

  it('closes the service\'s answer when the client leaves before it was relayed', async () => {
    const client = new AbortController();
    const res = await fetch(`${gateway.url}/.well-known/jwks.json`, { signal: client.signal });
    await res.body!.getReader().read();

    client.abort();

    await waitUntil(() => streams.closed === streams.opened, 'the service\'s answer closed');
    expect(streams.opened).toBe(1);
  });

  it('answers a client that pauses mid-body past the service\'s deadline with 408, not 504: the wait was the client\'s', async () => {
    const head = 'POST /v1/keys HTTP/1.1\r\nHost: api.test.local\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nc\r\n{"name":"sl"\r\n';

    const answer = await exchange(patient.port, head);

    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(envelopeOf(answer).error).toMatchObject({ code: 'request_timeout' });
  });
});
