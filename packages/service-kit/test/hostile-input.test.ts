// Requests an attacker or a broken client sends: bytes Node's HTTP parser
// refuses before express runs, and JSON nested deep enough to overflow the
// stack of anything that recurses over it. Every one gets the JSON envelope.
import { connect } from 'node:net';
import { Router } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOUNDS } from '@msa/contracts';
import { clientErrorAnswer, closeServer, createServiceApp, finishServiceApp, listen, type Listening } from '../src/index.js';
import { BASE_URL, captureLogs } from './support.js';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `raw` to the server and reads until it closes the connection. */
function sendRaw(port: number, raw: string | Buffer): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.end(raw);
  });
}

function expectSocketEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.headers.connection).toBe('close');
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  expect(JSON.parse(answer.body).error).toMatchObject({ code, status, docs: `${BASE_URL}/developers#${code}` });
}

let listening: Listening;
let app: ReturnType<typeof createServiceApp>;

beforeAll(async () => {
  const logs = captureLogs();
  app = createServiceApp({ service: 'requests', logger: logs.logger, publicBaseUrl: BASE_URL });
  const router = Router();
  router.post('/v1/echo', (req, res) => {
    // What a handler that serialises its input does; it would overflow on deep JSON.
    res.json({ received: req.body });
  });
  app.use(router);
  finishServiceApp(app, { logger: logs.logger, publicBaseUrl: BASE_URL });
  listening = await listen(app, 0, { host: '127.0.0.1', publicBaseUrl: BASE_URL });
});

afterAll(async () => {
  await closeServer(listening.server);
});

describe('listen: requests the HTTP parser refuses', () => {
  it('answers an unknown method with 400 invalid_request as JSON and closes the connection', async () => {
    const answer = await sendRaw(listening.port, 'BREW /v1/echo HTTP/1.1\r\nHost: x\r\n\r\n');

    expectSocketEnvelope(answer, 400, 'invalid_request');
  });

  it('answers a NUL byte in the path with 400 invalid_request as JSON', async () => {
    const answer = await sendRaw(listening.port, Buffer.from('GET /v1/\0echo HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1'));

    expectSocketEnvelope(answer, 400, 'invalid_request');
  });

  it('answers a raw non-ASCII byte in a header name with 400 invalid_request as JSON', async () => {
    const answer = await sendRaw(listening.port, Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nX-\xff: 1\r\n\r\n', 'latin1'));

    expectSocketEnvelope(answer, 400, 'invalid_request');
  });

  it('answers headers over 16 kB with 431 headers_too_large as JSON', async () => {
    const answer = await sendRaw(listening.port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`);

    expectSocketEnvelope(answer, 431, 'headers_too_large');
  });

  it('keeps serving after refusing malformed requests', async () => {
    const res = await request(listening.url).get('/healthz');

    expect(res.status).toBe(200);
  });

  it('maps a request that did not arrive in time to 408 request_timeout', () => {
    const err = Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });

    const answer = clientErrorAnswer(err, { publicBaseUrl: BASE_URL });

    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).error.code).toBe('request_timeout');
  });
});

describe('createServiceApp: JSON nesting', () => {
  it(`answers JSON nested 5,000 deep with 400 invalid_request, not a stack overflow`, async () => {
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);

    const res = await request(app).post('/v1/echo').set('content-type', 'application/json').send(deep);

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(res.body.error.message).toContain(String(BOUNDS.jsonMaxDepth));
  });

  it('accepts JSON nested exactly as deep as the bound', async () => {
    let body: unknown = 1;
    for (let i = 0; i < BOUNDS.jsonMaxDepth; i++) body = { a: body };

    const res = await request(app).post('/v1/echo').send(body as object);

    expect(res.status).toBe(200);
  });

  it('refuses a body one level deeper than the bound', async () => {
    let body: unknown = 1;
    for (let i = 0; i < BOUNDS.jsonMaxDepth + 1; i++) body = [body];

    const res = await request(app).post('/v1/echo').send(body as object);

    expect(res.status).toBe(400);
  });
});
