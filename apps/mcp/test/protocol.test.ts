import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { MCP_TOOLS } from '@msa/contracts';
import { internalHeaders } from '@msa/test-kit';
import {
  LEGACY_VERSION,
  MODERN_VERSION,
  callTool,
  initializeRequest,
  legacyRequest,
  modernRequest,
  startMcpHarness,
  type McpHarness,
} from './support.js';

let h: McpHarness;

beforeAll(async () => {
  h = await startMcpHarness('mcp-protocol');
});

afterAll(async () => {
  await h?.close();
});

const TOOL_NAMES = MCP_TOOLS.map((t) => t.name);

describe('POST /mcp with a 2025-11-25 client', () => {
  it('answers initialize with the requested version, tools and resources capabilities and instructions', async () => {
    const res = await h.rpc(initializeRequest());

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(res.body.result.protocolVersion).toBe(LEGACY_VERSION);
    expect(res.body.result.capabilities).toMatchObject({ tools: {}, resources: {} });
    expect(res.body.result.serverInfo.name).toBe('merch-shop-agent-api');
    expect(res.body.result.instructions).toContain('search_products');
  });

  it('answers ping without a session', async () => {
    const ping = legacyRequest('ping');

    const res = await h.rpc(ping, { headers: { 'MCP-Protocol-Version': LEGACY_VERSION } });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: ping.id, result: {} });
  });

  it('lists every tool of the contracts table with input and output schemas, titles and annotations', async () => {
    const res = await h.rpc(legacyRequest('tools/list'), { headers: { 'MCP-Protocol-Version': LEGACY_VERSION } });

    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tool definitions are deep JSON under test
    const tools = res.body.result.tools as Array<Record<string, any>>;
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.title).toEqual(expect.any(String));
      expect(tool.description.length).toBeGreaterThan(200);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema).toBeDefined();
      expect(tool.annotations).toEqual({ title: tool.title, ...MCP_TOOLS.find((t) => t.name === tool.name)!.hints });
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.search_products!.inputSchema.properties).toHaveProperty('q');
    expect(byName.search_products!.inputSchema.properties.limit).toMatchObject({ minimum: 1, maximum: 250 });
    expect(byName.search_products!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(byName.get_product!.inputSchema.required).toEqual(['handle']);
    expect(byName.get_product!.description).toContain('never invent');
    expect(byName.list_public_shops!.inputSchema.properties.category.enum).toContain('handwerker');
    expect(byName.create_shop_request!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    expect(byName.create_shop_request!.inputSchema.required).toEqual(expect.arrayContaining(['organization', 'shop_name']));
    expect(byName.create_shop_request!.inputSchema.properties).toHaveProperty('idempotency_key');
    expect(byName.create_shop_request!.inputSchema.properties.idempotency_key['x-mcp-header']).toBe('Idempotency-Key');
    expect(byName.get_shop_request!.inputSchema.required).toEqual(['id']);
    expect(byName.get_shop_request!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
  });

  it('lists each tool with the title and read-only hint of the contracts table', async () => {
    const res = await h.rpc(legacyRequest('tools/list'), { headers: { 'MCP-Protocol-Version': LEGACY_VERSION } });

    const tools = res.body.result.tools as Array<{ name: string; title: string; annotations: { readOnlyHint: boolean; idempotentHint: boolean } }>;
    expect(tools.map((t) => [t.name, t.title, t.annotations.readOnlyHint, t.annotations.idempotentHint])).toEqual(
      MCP_TOOLS.map((t) => [t.name, t.title, t.readOnly, t.readOnly]),
    );
  });

  it('lists the six resources with stable URIs and media types', async () => {
    const res = await h.rpc(legacyRequest('resources/list'));

    const resources = res.body.result.resources as Array<{ name: string; uri: string; mimeType: string }>;
    expect(resources.map((r) => [r.name, r.uri, r.mimeType])).toEqual(
      expect.arrayContaining([
        ['llms.txt', 'msa://docs/llms.txt', 'text/markdown'],
        ['agents.md', 'msa://docs/agents.md', 'text/markdown'],
        ['openapi.json', 'msa://docs/openapi.json', 'application/json'],
        ['products', 'msa://catalog/products', 'application/json'],
        ['pricing', 'msa://catalog/pricing', 'application/json'],
        ['public-shops', 'msa://shops/public', 'application/json'],
      ]),
    );
    expect(resources).toHaveLength(6);
  });

  it('answers a batch with an array of responses in request order, skipping notifications', async () => {
    const ping = legacyRequest('ping');
    const list = legacyRequest('tools/list');
    const unknown = legacyRequest('prompts/frobnicate');

    const res = await h.rpc([ping, { jsonrpc: '2.0', method: 'notifications/initialized' }, list, unknown]);

    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((r: { id: number }) => r.id)).toEqual([ping.id, list.id, unknown.id]);
    expect(res.body[1].result.tools).toHaveLength(MCP_TOOLS.length);
    expect(res.body[2].error.code).toBe(-32601);
  });

  it('answers a batch holding one request with an array of one', async () => {
    const res = await h.rpc([legacyRequest('ping')]);

    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
  });

  it('serves initialize inside a batch next to other requests', async () => {
    const res = await h.rpc([initializeRequest(), callTool('get_pricing')]);

    expect(res.body[0].result.protocolVersion).toBe(LEGACY_VERSION);
    expect(res.body[1].result.structuredContent.minimum_order_quantity).toBe(1);
  });

  it('answers invalid batch elements with Invalid Request errors', async () => {
    const res = await h.rpc([1, legacyRequest('ping')]);

    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(res.body[1].result).toEqual({});
  });

  it('answers an empty batch with one Invalid Request error', async () => {
    const res = await h.rpc([]);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32600);
  });

  it('accepts a notification with 202 and an empty body', async () => {
    const res = await h.rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });

    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('accepts a batch of only notifications with 202 and an empty body', async () => {
    const res = await h.rpc([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    ]);

    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('answers malformed JSON with a parse error (-32700)', async () => {
    const res = await h.rpc('{"jsonrpc": "2.0", "id": 1, "method": ');

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } });
  });

  it('answers an unknown method with -32601', async () => {
    const unknown = legacyRequest('tools/frobnicate');

    const res = await h.rpc(unknown);

    expect(res.body).toMatchObject({ id: unknown.id, error: { code: -32601 } });
  });

  it('answers a body that is not JSON-RPC with Invalid Request (-32600)', async () => {
    const res = await h.rpc({ hello: 'world' });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32600);
  });

  it('serves a client that sends only Accept: application/json', async () => {
    const res = await h.rpc(legacyRequest('ping'), { headers: { Accept: 'application/json' } });

    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({});
  });

  it('refuses an unsupported MCP-Protocol-Version header', async () => {
    const res = await h.rpc(legacyRequest('tools/list'), { headers: { 'MCP-Protocol-Version': '1999-01-01' } });

    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('Unsupported protocol version');
  });
});

describe('POST /mcp with a 2026-07-28 client', () => {
  it('answers server/discover with the supported versions and capabilities', async () => {
    const { body, headers } = modernRequest('server/discover');

    const res = await h.rpc(body, { headers });

    expect(res.status).toBe(200);
    expect(res.body.result.supportedVersions).toContain(MODERN_VERSION);
    expect(res.body.result.capabilities).toMatchObject({ tools: {}, resources: {} });
  });

  it('lists tools and calls one with the per-request envelope', async () => {
    const list = modernRequest('tools/list');
    const call = modernRequest('tools/call', { name: 'get_pricing', arguments: {} }, 'get_pricing');

    const listed = await h.rpc(list.body, { headers: list.headers });
    const called = await h.rpc(call.body, { headers: call.headers });

    expect(listed.body.result.tools).toHaveLength(MCP_TOOLS.length);
    expect(called.status).toBe(200);
    expect(called.body.result.structuredContent.currency).toBe('EUR');
  });

  it('refuses a request whose Mcp-Method header disagrees with the body', async () => {
    const { body, headers } = modernRequest('tools/list');

    const res = await h.rpc(body, { headers: { ...headers, 'Mcp-Method': 'resources/list' } });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32020);
  });

  it('answers a batch holding a 2026-07-28 request with a per-element error', async () => {
    const { body } = modernRequest('tools/list');

    const res = await h.rpc([body, legacyRequest('ping')]);

    expect(res.body[0]).toMatchObject({ id: body.id, error: { code: -32600 } });
    expect(res.body[1].result).toEqual({});
  });
});

describe('/mcp methods and origins', () => {
  it('answers GET with 405 and Allow: POST', async () => {
    const res = await request(h.app).get('/mcp').set(internalHeaders('mcp')).set('Accept', 'text/event-stream');

    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  });

  it('answers DELETE with 405 and Allow: POST', async () => {
    const res = await request(h.app).delete('/mcp').set(internalHeaders('mcp'));

    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
  });

  it('answers a browser client on another origin (the MCP Inspector, a web host) by default', async () => {
    const res = await h.rpc(legacyRequest('ping'), { headers: { Origin: 'https://web-host.example', 'X-Forwarded-Host': 'api.test.local' } });

    expect(res.status).toBe(200);
  });

  it('still refuses a foreign Host sent with any origin: what a rebound name looks like', async () => {
    const res = await h.rpc(legacyRequest('ping'), { headers: { Origin: 'http://rebound.evil.example', 'X-Forwarded-Host': 'rebound.evil.example' } });

    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('host');
  });

  it('refuses the opaque origin "null"', async () => {
    const res = await h.rpc(legacyRequest('ping'), { headers: { Origin: 'null' } });

    expect(res.status).toBe(403);
  });

  it('allows the origin of the public base URL and localhost outside production', async () => {
    const own = await h.rpc(legacyRequest('ping'), { headers: { Origin: 'http://api.test.local' } });
    const local = await h.rpc(legacyRequest('ping'), { headers: { Origin: 'http://localhost:5173' } });

    expect(own.status).toBe(200);
    expect(local.status).toBe(200);
  });

  it('refuses a foreign host forwarded by the gateway', async () => {
    const res = await h.rpc(legacyRequest('ping'), { headers: { 'X-Forwarded-Host': 'rebound.evil.example' } });

    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('host');
  });

  it('answers the public host forwarded by the gateway', async () => {
    const res = await h.rpc(legacyRequest('ping'), { headers: { 'X-Forwarded-Host': 'api.test.local' } });

    expect(res.status).toBe(200);
  });

  it('refuses a call that did not come through the gateway', async () => {
    const res = await request(h.app).post('/mcp').set('Content-Type', 'application/json').send(legacyRequest('ping'));

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await request(h.app).post('/mcp').set(internalHeaders('mcp')).set('Content-Type', 'text/plain').send('ping');

    expect(res.status).toBe(415);
    expect(res.body.jsonrpc).toBe('2.0');
  });
});

describe('/mcp in production', () => {
  let prod: McpHarness;

  beforeAll(async () => {
    prod = await startMcpHarness('mcp-protocol-prod', { production: true, allowedOrigins: ['https://console.example.org'] });
  });

  afterAll(async () => {
    await prod?.close();
  });

  it('refuses localhost origins and hosts', async () => {
    const origin = await prod.rpc(legacyRequest('ping'), { headers: { Origin: 'http://localhost:5173', 'X-Forwarded-Host': 'api.test.local' } });
    const host = await prod.rpc(legacyRequest('ping'), { headers: { 'X-Forwarded-Host': 'localhost:8080' } });

    expect(origin.status).toBe(403);
    expect(host.status).toBe(403);
  });

  it('refuses an origin MCP_ALLOWED_ORIGINS does not list, with 403 and the origin_not_allowed envelope in error.data', async () => {
    const res = await prod.rpc(legacyRequest('ping'), { headers: { Origin: 'https://evil.example', 'X-Forwarded-Host': 'api.test.local' } });

    expect(res.status).toBe(403);
    expect(res.body.error.data.error.code).toBe('origin_not_allowed');
  });

  it('allows an origin listed in MCP_ALLOWED_ORIGINS', async () => {
    const res = await prod.rpc(legacyRequest('ping'), { headers: { Origin: 'https://console.example.org', 'X-Forwarded-Host': 'api.test.local' } });

    expect(res.status).toBe(200);
  });
});
