import { createServer } from 'node:net';
import { createCatalogClient, createRequestsClient, createShopsClient, type CallContext } from '@msa/contracts';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, buildPrincipal, internalHeaders, testLogger, testSigner } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp, type McpApp } from '../src/app.js';
import { callTool, legacyRequest } from './support.js';

// A port that was free a moment ago and has nothing listening on it.
async function closedPortUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

let mcp: McpApp;

beforeAll(async () => {
  const down = await closedPortUrl();
  mcp = createMcpApp({
    catalog: createCatalogClient({ baseUrl: down, sign: testSigner }),
    shops: createShopsClient({ baseUrl: down, sign: testSigner }),
    requests: createRequestsClient({ baseUrl: down, sign: testSigner }),
    publicBaseUrl: TEST_BASE_URL,
    internalAuthSecret: TEST_INTERNAL_SECRET,
    production: false,
    logger: testLogger('mcp'),
  });
});

afterAll(async () => {
  await mcp?.dispatcher.close();
});

const rpc = (body: unknown, ctx: Partial<CallContext> = {}) =>
  request(mcp.app).post('/mcp').set(internalHeaders('mcp', ctx)).set('Content-Type', 'application/json').send(JSON.stringify(body));

describe('/mcp when the services behind it are down', () => {
  it('answers a tool call with an isError result carrying upstream_unavailable', async () => {
    const res = await rpc(callTool('get_pricing'));

    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent.error).toMatchObject({ code: 'upstream_unavailable', status: 502 });
    expect(res.body.result.structuredContent.error.hint).toContain('retrying is safe');
  });

  it('answers create_shop_request with upstream_unavailable too', async () => {
    const res = await rpc(
      callTool('create_shop_request', {
        organization: { name: 'X', type: 'verein', contact_name: 'Y', email: 'y@example.org' },
        shop_name: 'X',
        design_service: true,
      }),
      { principal: buildPrincipal({ mode: 'live' }) },
    );

    expect(res.body.result.structuredContent.error.code).toBe('upstream_unavailable');
  });

  it('answers a resource read with a JSON-RPC error whose data is the envelope', async () => {
    const res = await rpc(legacyRequest('resources/read', { uri: 'msa://catalog/products' }));

    expect(res.body.error.code).toBe(-32603);
    expect(res.body.error.data.error.code).toBe('upstream_unavailable');
  });

  it('still serves documents that need no service', async () => {
    const res = await rpc(legacyRequest('resources/read', { uri: 'msa://docs/agents.md' }));

    expect(res.body.result.contents[0].text).toContain('# Acting with the Merch-Shop Agent API');
  });

  it('answers a body over 100 kB with 413', async () => {
    const res = await rpc(callTool('search_products', { q: 'x'.repeat(120_000) }));

    expect(res.status).toBe(413);
    expect(res.body.jsonrpc).toBe('2.0');
  });
});
