// Clients that send a request slowly: the body deadline of createServiceApp
// and Node's own clocks as listen sets them. Every cut is a 408 in the
// envelope, and the connection is closed.
import { connect } from 'node:net';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, createServiceApp, DEFAULT_HTTP_TIMEOUTS, finishServiceApp, listen, type Listening } from '../src/index.js';
import { BASE_URL, captureLogs } from './support.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Bytes written after the head when the connection closed. */
  bytesSent: number;
}

/** Writes `head`, then one byte every `intervalMs`, until the server closes the connection (test-kit's trickle, which service-kit cannot import). */
function trickle(port: number, head: string, intervalMs = 100): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let bytesSent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return;
      socket.write('x');
      bytesSent++;
    }, intervalMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [rawHead = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = rawHead.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), bytesSent });
    });
    socket.write(head);
  });
}

let listening: Listening;
const handled: unknown[] = [];

beforeAll(async () => {
  const { logger } = captureLogs();
  const app = createServiceApp({ service: 'requests', logger, publicBaseUrl: BASE_URL, bodyDeadlineMs: 600 });
  const router = Router();
  router.post('/v1/echo', (req, res) => {
    handled.push(req.body);
    res.json({ received: req.body });
  });
  app.use(router);
  finishServiceApp(app, { logger, publicBaseUrl: BASE_URL });
  listening = await listen(app, 0, { host: '127.0.0.1', publicBaseUrl: BASE_URL, timeouts: { headersTimeoutMs: 400, requestTimeoutMs: 5_000, checkIntervalMs: 100 } });
});

afterAll(async () => {
  await closeServer(listening.server, { forceAfterMs: 100 });
});

describe('slow requests', () => {
  it('answers a body trickled one byte at a time with 408 at the body deadline, though no pause is long, and never runs the handler', async () => {
    const answer = await trickle(listening.port, 'POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n');

    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'request_timeout', status: 408 });
    expect(answer.bytesSent).toBeLessThan(1_000);
    expect(handled).toEqual([]);
  });

  it('cuts headers that never end with 408 in the envelope once the headers timeout passes', async () => {
    const answer = await trickle(listening.port, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');

    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'request_timeout', status: 408 });
  });

  it('still answers a whole body sent at once', async () => {
    const res = await fetch(`${listening.url}/v1/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });

    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: { a: 1 } });
  });

  it('sets every clock on a server listen starts, none at Node\'s defaults', () => {
    const { server } = listening;

    expect([server.headersTimeout, server.requestTimeout]).toEqual([400, 5_000]);
    expect(server.keepAliveTimeout).toBe(DEFAULT_HTTP_TIMEOUTS.keepAliveTimeoutMs);
    expect(DEFAULT_HTTP_TIMEOUTS.requestTimeoutMs).toBeLessThan(300_000);
  });
});
