// The gateway's requests and responses get every property its stages and
// its proxy set when they are constructed (service-kit request-shape.ts): a
// property added after express has replaced their prototype costs a hidden
// class per request. Proxied answers, with and without a key, and refusals.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { closeServer, listen, type Listening } from '@msa/service-kit';
import { buildContext, createTestRedis, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { BASE, startServer, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

interface Gained {
  request: (string | symbol)[];
  response: (string | symbol)[];
}

describe('gateway request and response shape', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let gateway: Listening;
  let upstream: { url: string; server: http.Server };
  let apiKey: string;
  const gained: Gained[] = [];

  beforeAll(async () => {
    tr = await createTestRedis('gateway-request-shape');
    identity = await startTestIdentity(tr);
    upstream = await startServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"items":[]}');
    });
    gateway = await listen(createApp(testGatewayDeps(tr, identity, upstream.url)), 0, { host: '127.0.0.1', publicBaseUrl: BASE });
    gateway.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const request = new Set(Reflect.ownKeys(req));
      const response = new Set(Reflect.ownKeys(res));
      res.on('finish', () => {
        gained.push({ request: Reflect.ownKeys(req).filter((k) => !request.has(k)), response: Reflect.ownKeys(res).filter((k) => !response.has(k)) });
      });
    });
    const created = await identity.client.raw.send('POST', '/v1/keys', buildContext({ ip: '198.51.100.76' }), {
      body: { name: 'agent', email: 'agent@example.org', mode: 'live', scopes: ['catalog:read'] },
    });
    apiKey = (created.body as { api_key: string }).api_key;
  });

  afterAll(async () => {
    if (gateway) await closeServer(gateway.server, { forceAfterMs: 100 });
    upstream?.server.closeAllConnections();
    upstream?.server.close();
    await identity?.close();
    await tr?.cleanup();
  });

  async function send(path: string, headers: Record<string, string>, status: number, init: RequestInit = {}): Promise<Gained> {
    gained.length = 0;
    const res = await fetch(`${gateway.url}${path}`, { ...init, headers });
    await res.arrayBuffer();
    expect(res.status).toBe(status);
    expect(gained).toHaveLength(1);
    return gained[0]!;
  }

  it('adds no property to a proxied GET with an API key, nor to its response', async () => {
    expect(await send('/v1/products?q=hoodie', { Authorization: `Bearer ${apiKey}` }, 200)).toEqual({ request: [], response: [] });
  });

  it('adds no property to a proxied anonymous GET, nor to its response', async () => {
    expect(await send('/v1/products?q=hoodie', {}, 200)).toEqual({ request: [], response: [] });
  });

  it('adds no property to a POST whose body the gateway receives before forwarding it', async () => {
    const body = JSON.stringify({ name: 'agent', email: 'agent@example.org' });
    expect(await send('/v1/keys', { 'Content-Type': 'application/json' }, 200, { method: 'POST', body })).toEqual({ request: [], response: [] });
  });

  it('adds no property to a request refused for a wrong key or an unknown path', async () => {
    expect(await send('/v1/products', { Authorization: 'Bearer msa_live_wrong' }, 401)).toEqual({ request: [], response: [] });
    expect(await send('/v1/nowhere', {}, 404)).toEqual({ request: [], response: [] });
  });
});
