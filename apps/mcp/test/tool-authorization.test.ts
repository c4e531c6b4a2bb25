// Authorization per tool: create_shop_request needs requests:write and
// get_shop_request requests:read, and the refusal is an HTTP 401/403 with a
// Bearer challenge an OAuth-capable host follows; catalog and shop reads stay
// open, and the sandbox takes anonymous requests and reads them back.
import { createMetrics, type Metrics } from '@msa/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildShopRequest,
  callTool,
  initializeRequest,
  legacyRequest,
  livePrincipal,
  modernRequest,
  sandboxPrincipal,
  startMcpHarness,
  TEST_BASE_URL,
  type McpHarness,
} from './support.js';

const MCP_METADATA = `${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp`;
const SANDBOX_MCP_METADATA = `${TEST_BASE_URL}/.well-known/oauth-protected-resource/sandbox/mcp`;
const anonymous = { principal: null, sandbox: false };
const onSandboxPath = { 'X-Forwarded-Prefix': '/sandbox' };

let h: McpHarness;
let metrics: Metrics;

beforeAll(async () => {
  metrics = createMetrics('mcp');
  h = await startMcpHarness('mcp-tool-authorization', { metrics });
});

afterAll(async () => {
  await h?.close();
});

/** How many calls of a tool ran, whatever their outcome. */
async function toolCallsOf(tool: string): Promise<number> {
  const counter = metrics.registry.getSingleMetric('mcp_tool_calls_total');
  const values = counter ? (await counter.get()).values : [];
  return values.filter((v) => v.labels.tool === tool).reduce((sum, v) => sum + v.value, 0);
}

describe('create_shop_request without credentials on /mcp', () => {
  it('answers 401 with a Bearer challenge naming the /mcp resource metadata and requests:write', async () => {
    const message = callTool('create_shop_request', buildShopRequest());

    const res = await h.rpc(message, { ctx: anonymous });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${MCP_METADATA}", scope="requests:write"`);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: message.id, error: { code: -32000 } });
    expect(res.body.error.data.error).toMatchObject({ code: 'unauthorized', status: 401, docs: `${TEST_BASE_URL}/developers#unauthorized` });
    expect(res.body.error.message).toContain('authorize this MCP connection (OAuth');
    expect(res.body.error.message).toContain('send an API key');
    expect(res.body.error.data.error.hint).toContain(`${TEST_BASE_URL}/sandbox/mcp`);
  });

  it('answers a 2026-07-28 request the same way', async () => {
    const { body, headers } = modernRequest('tools/call', { name: 'create_shop_request', arguments: buildShopRequest() }, 'create_shop_request');

    const res = await h.rpc(body, { ctx: anonymous, headers });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${MCP_METADATA}", scope="requests:write"`);
    expect(res.body.id).toBe(body.id);
  });

  it('refuses a batch holding one as a whole with 401, before anything in it runs', async () => {
    const before = await toolCallsOf('get_pricing');

    const res = await h.rpc([callTool('get_pricing'), callTool('create_shop_request', buildShopRequest())], { ctx: anonymous });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${MCP_METADATA}", scope="requests:write"`);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { data: { error: { code: 'unauthorized' } } } });
    expect(await toolCallsOf('get_pricing')).toBe(before);
  });
});

describe('create_shop_request with credentials that lack requests:write', () => {
  const principal = livePrincipal({ scopes: ['catalog:read', 'shops:read'] });

  it('gets 403 insufficient_scope with a step-up challenge on /mcp', async () => {
    const message = callTool('create_shop_request', buildShopRequest());

    const res = await h.rpc(message, { ctx: { principal, sandbox: false } });

    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="requests:write", resource_metadata="${MCP_METADATA}"`,
    );
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: message.id });
    expect(res.body.error.data.error).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(res.body.error.message).toContain('requests:write');
  });

  it('gets 403 naming the sandbox resource metadata on /sandbox/mcp', async () => {
    const res = await h.rpc(callTool('create_shop_request', buildShopRequest()), { ctx: { principal, sandbox: true }, headers: onSandboxPath });

    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", scope="requests:write", resource_metadata="${SANDBOX_MCP_METADATA}"`,
    );
  });

  it('with a sandbox key on /mcp is pointed at the /mcp metadata it addressed', async () => {
    const res = await h.rpc(callTool('create_shop_request', buildShopRequest()), {
      ctx: { principal: sandboxPrincipal({ scopes: ['catalog:read'] }), sandbox: true },
    });

    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toContain(`resource_metadata="${MCP_METADATA}"`);
  });
});

describe('anonymous reads on /mcp', () => {
  it('stay open: initialize, ping, the lists, a resource and every read tool', async () => {
    const messages = [
      initializeRequest(),
      legacyRequest('ping'),
      legacyRequest('tools/list'),
      legacyRequest('resources/list'),
      legacyRequest('resources/read', { uri: 'msa://catalog/pricing' }),
      callTool('search_products', { q: 'hoodie', limit: 1 }),
      callTool('get_product', { handle: 'bio-t-shirt-unisex' }),
      callTool('get_pricing'),
      callTool('list_public_shops'),
    ];

    for (const message of messages) {
      const res = await h.rpc(message, { ctx: anonymous });

      expect(res.status, message.method).toBe(200);
      expect(res.headers['www-authenticate'], message.method).toBeUndefined();
      expect(res.body.error, message.method).toBeUndefined();
      expect(res.body.result?.isError, JSON.stringify(message.params)).toBeFalsy();
    }
  });

  it('stay open in a batch', async () => {
    const res = await h.rpc([legacyRequest('ping'), callTool('get_pricing')], { ctx: anonymous });

    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
  });
});

describe('create_shop_request on /sandbox/mcp', () => {
  it('without credentials is still a sandbox request', async () => {
    const res = await h.rpc(callTool('create_shop_request', buildShopRequest()), { ctx: { principal: null, sandbox: true }, headers: onSandboxPath });

    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body.result.structuredContent).toMatchObject({ status: 'received', sandbox: true });
  });
});

describe('get_shop_request', () => {
  const read = (id = 'req_0123456789abcdef') => callTool('get_shop_request', { id });

  it('without credentials on /mcp answers 401 with a Bearer challenge naming requests:read, and the sandbox as the way without', async () => {
    const message = read();

    const res = await h.rpc(message, { ctx: anonymous });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${MCP_METADATA}", scope="requests:read"`);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: message.id, error: { code: -32000, data: { error: { code: 'unauthorized' } } } });
    expect(res.body.error.message).toContain('get_shop_request needs authorization');
    expect(res.body.error.data.error.hint).toContain(`${TEST_BASE_URL}/sandbox/mcp reads back`);
  });

  it('answers a 2026-07-28 request the same way', async () => {
    const { body, headers } = modernRequest('tools/call', { name: 'get_shop_request', arguments: { id: 'req_0123456789abcdef' } }, 'get_shop_request');

    const res = await h.rpc(body, { ctx: anonymous, headers });

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toContain('scope="requests:read"');
  });

  it('with credentials lacking requests:read gets 403 insufficient_scope with a step-up challenge', async () => {
    const principal = livePrincipal({ scopes: ['catalog:read', 'requests:write'] });

    const res = await h.rpc(read(), { ctx: { principal, sandbox: false } });

    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBe(`Bearer error="insufficient_scope", scope="requests:read", resource_metadata="${MCP_METADATA}"`);
    expect(res.body.error.data.error).toMatchObject({ code: 'insufficient_scope', status: 403 });
  });

  it('without credentials on /sandbox/mcp runs, as the client address', async () => {
    const res = await h.rpc(read(), { ctx: { principal: null, sandbox: true }, headers: onSandboxPath });

    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body.result.structuredContent.error.code).toBe('shop_request_not_found');
  });

  it('with requests:read on /mcp runs', async () => {
    const res = await h.rpc(read(), { ctx: { principal: livePrincipal({ scopes: ['requests:read'] }), sandbox: false } });

    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ isError: true, structuredContent: { error: { code: 'shop_request_not_found', status: 404 } } });
  });
});

describe('create_shop_request with requests:write on /mcp', () => {
  it('runs as before', async () => {
    const res = await h.rpc(callTool('create_shop_request', buildShopRequest()), { ctx: { principal: livePrincipal(), sandbox: false } });

    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent).toMatchObject({ status: 'received', sandbox: false });
  });
});
