// A tool call answers within TOOL_DEADLINE_MS whatever the services behind
// it do: here they accept the connection and never answer, while each call's
// own time limit is far longer than the deadline.
import { createServer, type Server, type Socket } from 'node:net';
import { createCatalogClient, createRequestsClient, createShopsClient, type CallContext } from '@msa/contracts';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, buildPrincipal, internalHeaders, testLogger, testSigner } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp, type McpApp } from '../src/app.js';
import { McpEnv } from '../src/config.js';
import { callTool } from './support.js';

const STALL_MS = 30_000;

let mcp: McpApp;
let silent: Server;
const sockets = new Set<Socket>();

beforeAll(async () => {
  // Takes every connection and never says a word.
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  mcp = createMcpApp({
    catalog: createCatalogClient({ baseUrl: url, sign: testSigner, timeoutMs: STALL_MS }),
    shops: createShopsClient({ baseUrl: url, sign: testSigner, timeoutMs: STALL_MS }),
    requests: createRequestsClient({ baseUrl: url, sign: testSigner, timeoutMs: STALL_MS }),
    publicBaseUrl: TEST_BASE_URL,
    internalAuthSecret: TEST_INTERNAL_SECRET,
    production: false,
    logger: testLogger('mcp'),
    toolDeadlineMs: 1_000,
  });
});

afterAll(async () => {
  await mcp?.dispatcher.close();
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

const rpc = (body: unknown, ctx: Partial<CallContext> = {}) =>
  request(mcp.app).post('/mcp').set(internalHeaders('mcp', ctx)).set('Content-Type', 'application/json').send(JSON.stringify(body));

describe('a tool call when a service never answers', () => {
  it('answers within the deadline with an isError result saying the service is slow, not a hang', async () => {
    const started = Date.now();

    const res = await rpc(callTool('search_products', { q: 'hoodie' }));

    // Generous: the stall is 30 s, the deadline 1 s.
    expect(Date.now() - started).toBeLessThan(STALL_MS / 3);
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent.error).toMatchObject({ code: 'upstream_timeout', status: 504 });
    expect(res.body.result.content[0].text).toContain('did not finish within 1 s: the catalog service is slow');
  });

  it('tells a caller of create_shop_request to repeat it with the same idempotency key', async () => {
    const res = await rpc(
      callTool('create_shop_request', {
        organization: { name: 'X', type: 'verein', contact_name: 'Y', email: 'y@example.org' },
        shop_name: 'X',
        design_service: true,
        idempotency_key: 'deadline-test-0001',
      }),
      { principal: buildPrincipal({ mode: 'live' }) },
    );

    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent.error.code).toBe('upstream_timeout');
    expect(res.body.result.structuredContent.error.hint).toContain('same idempotency_key');
  });
});

describe('TOOL_DEADLINE_MS', () => {
  it('defaults to 50 s, under the 60 s ChatGPT waits for a tool', () => {
    const config = McpEnv.parse({ PUBLIC_BASE_URL: TEST_BASE_URL, INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET });

    expect(config.TOOL_DEADLINE_MS).toBe(50_000);
  });
});
