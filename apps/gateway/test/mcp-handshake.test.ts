// POST /mcp handshakes count in their own bucket, and the gateway's peek at
// the body changes nothing the mcp service receives.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

let tr: TestRedis;
let identity: TestIdentity;
let upstream: http.Server;
let app: ReturnType<typeof createApp>;
const received: Buffer[] = [];

beforeAll(async () => {
  tr = await createTestRedis('gateway-mcp-handshake');
  identity = await startTestIdentity(tr);
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push(Buffer.concat(chunks));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  // The anonymous minute is small, so a test sees it run out.
  app = createApp(testGatewayDeps(tr, identity, url, { anonymous: 3, mcpHandshake: 240 }, { trustProxy: 'true' }));
});

afterAll(async () => {
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
  await identity?.close();
  await tr?.cleanup();
});

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const toolsCall = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_pricing', arguments: {} } };

function post(body: string, ip: string) {
  return request(app).post('/mcp').set('content-type', 'application/json').set('x-forwarded-for', `198.51.100.${ip}`).send(body);
}

describe('POST /mcp handshakes and the anonymous minute', () => {
  it('counts initialize and notifications/initialized in the mcp-handshake bucket, not the anonymous minute', async () => {
    const init = await post(JSON.stringify(initialize), '1');
    const notified = await post(JSON.stringify(initialized), '1');
    const call = await post(JSON.stringify(toolsCall), '1');

    expect(init.status).toBe(200);
    expect(init.headers['ratelimit-policy']).toBe('"mcp-handshake";q=240;w=60');
    expect(notified.headers['ratelimit-policy']).toBe('"mcp-handshake";q=240;w=60');
    expect(call.headers['ratelimit-policy']).toBe('"anonymous-per-minute";q=3;w=60');
    expect(call.headers.ratelimit).toMatch(/^"anonymous-per-minute";r=2;/);
  });

  it('still admits a handshake after the anonymous minute is spent, and refuses the next call', async () => {
    for (let i = 0; i < 3; i++) await post(JSON.stringify(toolsCall), '2');

    const init = await post(JSON.stringify(initialize), '2');
    const call = await post(JSON.stringify(toolsCall), '2');

    expect(init.status).toBe(200);
    expect(call.status).toBe(429);
  });

  it('counts a batch that mixes a handshake with a call as a request', async () => {
    const res = await post(JSON.stringify([initialize, toolsCall]), '3');

    expect(res.headers['ratelimit-policy']).toContain('anonymous-per-minute');
  });
});

describe('POST /mcp body forwarding', () => {
  it('forwards a peeked body byte for byte', async () => {
    const body = `{ "jsonrpc" : "2.0",\n  "id": 7, "method": "initialize", "params": {"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ü","version":"1"}} }`;
    received.length = 0;

    const res = await post(body, '4');

    expect(res.status).toBe(200);
    expect(received[0]?.toString('utf8')).toBe(body);
  });

  it('streams a body over the peek size through unread and unchanged', async () => {
    const body = JSON.stringify({ ...toolsCall, params: { name: 'create_shop_request', arguments: { notes: 'x'.repeat(20_000) } } });
    received.length = 0;

    const res = await post(body, '5');

    expect(res.status).toBe(200);
    expect(received[0]?.toString('utf8')).toBe(body);
  });
});
