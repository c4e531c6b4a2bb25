// The gateway waits longer for the mcp service than for the others: a tool
// call that meets its own deadline there must reach the host as the tool's
// error, not be cut off by a gateway 504 first.
import http from 'node:http';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { GatewayEnv } from '../src/config.js';
import { BASE, startServer, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

let tr: TestRedis;
let identity: TestIdentity;
let slow: { url: string; server: http.Server };
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  tr = await createTestRedis('gateway-mcp-deadline');
  identity = await startTestIdentity(tr);
  // Answers after 1 s, as a tool at its deadline would.
  slow = await startServer((req, res) => {
    req.resume();
    setTimeout(() => res.setHeader('content-type', 'application/json') && res.end('{"jsonrpc":"2.0","id":1,"result":{}}'), 1_000).unref();
  });
  app = createApp(testGatewayDeps(tr, identity, slow.url, {}, { upstreamTimeoutMs: 300, mcpTimeoutMs: 10_000 }));
});

afterAll(async () => {
  slow?.server.closeAllConnections();
  slow?.server.close();
  await identity?.close();
  await tr?.cleanup();
});

describe('the mcp service\'s answer deadline', () => {
  it('waits for /mcp past the other services\' deadline', async () => {
    const mcp = await request(app).post('/mcp').set('content-type', 'application/json').send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const other = await request(app).get('/v1/products');

    expect(mcp.status).toBe(200);
    expect(other.status).toBe(504);
  });

  it('defaults to 55 s, above the mcp service\'s 50 s tool deadline and below the 60 s hosts wait', () => {
    const config = GatewayEnv.parse({ PUBLIC_BASE_URL: BASE, INTERNAL_AUTH_SECRET: 'x'.repeat(32), REDIS_URL: 'redis://127.0.0.1:6379' });

    expect(config.MCP_ANSWER_TIMEOUT_MS).toBe(55_000);
  });
});
