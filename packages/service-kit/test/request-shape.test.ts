// A request and its response get every property they will carry when they
// are constructed (request-shape.ts): express gives each its own prototype,
// and a property added after that costs a hidden class per request. The
// tests send requests through a whole service front and list what the
// objects gained on the way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Router } from 'express';
import type { CallContext } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeServer,
  createInternalSigner,
  createMetrics,
  createServiceApp,
  finishServiceApp,
  listen,
  ShapedRequest,
  ShapedResponse,
  type Listening,
} from '../src/index.js';
import { BASE_URL, captureLogs, SECRET } from './support.js';

interface Gained {
  request: (string | symbol)[];
  response: (string | symbol)[];
  shaped: boolean;
}

let listening: Listening;
const gained: Gained[] = [];
const sign = createInternalSigner(SECRET);

beforeAll(async () => {
  const logs = captureLogs('warn');
  const app = createServiceApp({ service: 'catalog', logger: logs.logger, publicBaseUrl: BASE_URL, internalAuthSecret: SECRET, metrics: createMetrics('catalog') });
  const router = Router();
  router.get('/v1/things/:id', (req, res) => {
    res.json({ id: req.params.id, principal: req.ctx.principal?.id ?? null });
  });
  router.post('/v1/things', (req, res) => {
    res.status(201).json({ received: req.body });
  });
  app.use(router);
  finishServiceApp(app, { logger: logs.logger, publicBaseUrl: BASE_URL });
  listening = await listen(app, 0, { host: '127.0.0.1', publicBaseUrl: BASE_URL });
  // Runs before express: the keys each object has as constructed.
  listening.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const request = new Set(Reflect.ownKeys(req));
    const response = new Set(Reflect.ownKeys(res));
    // Express replaces the prototype on the way; the class is the one constructed.
    const shaped = req instanceof ShapedRequest && res instanceof ShapedResponse;
    res.on('finish', () => {
      gained.push({
        request: Reflect.ownKeys(req).filter((k) => !request.has(k)),
        response: Reflect.ownKeys(res).filter((k) => !response.has(k)),
        shaped,
      });
    });
  });
});

afterAll(async () => {
  await closeServer(listening.server);
});

const ctx: CallContext = {
  principal: { id: 'msa_client_0123456789abcdef', name: 'test-agent', scopes: ['catalog:read'], mode: 'live', tier: 'free', via: 'api_key' },
  sandbox: false,
  ip: '127.0.0.1',
  request_id: 'req-1',
};

async function send(path: string, init: RequestInit = {}, status = 200): Promise<Gained> {
  gained.length = 0;
  const res = await fetch(`${listening.url}${path}`, { ...init, headers: { 'X-Internal-Auth': sign('catalog', ctx), ...init.headers } });
  await res.arrayBuffer();
  expect(res.status).toBe(status);
  // The finish listener runs before the client has read the answer.
  expect(gained).toHaveLength(1);
  return gained[0]!;
}

describe('request and response shape', () => {
  it('builds requests and responses from the shaped classes', async () => {
    expect((await send('/v1/things/a')).shaped).toBe(true);
  });

  it('adds no property to a routed GET or its response after construction', async () => {
    const { request, response } = await send('/v1/things/a?x=1', { headers: { 'X-Request-Id': 'req-1', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
    expect(request).toEqual([]);
    expect(response).toEqual([]);
  });

  it('adds no property to a POST whose JSON body is parsed', async () => {
    const { request, response } = await send('/v1/things', { method: 'POST', body: JSON.stringify({ a: 1 }), headers: { 'Content-Type': 'application/json' } }, 201);
    expect(request).toEqual([]);
    expect(response).toEqual([]);
  });

  it('adds no property to a request refused with 404 or 401', async () => {
    expect(await send('/v1/nothing-here', {}, 404)).toMatchObject({ request: [], response: [] });
    gained.length = 0;
    const res = await fetch(`${listening.url}/v1/things/a`);
    await res.arrayBuffer();
    expect(res.status).toBe(401);
    expect(gained[0]).toMatchObject({ request: [], response: [] });
  });
});
