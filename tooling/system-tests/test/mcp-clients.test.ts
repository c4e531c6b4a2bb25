// The MCP endpoint through the gateway, driven by the SDK's own clients: a
// 2025-11-25 client (SDK v1) and a 2026-07-28 client (SDK v2, pinned). Each
// lists and calls every tool and reads every resource; shop requests land
// live or on the sandbox depending on the credentials and the path.
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { IntakeJob, LIMITS, OPERATION_IDS } from '@msa/contracts';
import { createRedis } from '@msa/service-kit/redis';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let system: System;
let queueConnection: Redis;
let queue: Queue<IntakeJob>;

beforeAll(async () => {
  // Both clients make several calls per connection; the anonymous per-minute limit is not under test here.
  system = await startSystem({ name: 'mcp-clients', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000', RATE_LIMIT_PER_MINUTE: '10000' } });
  queueConnection = createRedis(system.redisUrl, 'api');
  queue = new Queue<IntakeJob>('intake', { connection: queueConnection, prefix: system.queuePrefix });
});

afterAll(async () => {
  await queue?.close();
  queueConnection?.disconnect();
  await system?.close();
});

/** What the tests need from either SDK's client. */
interface McpClient {
  protocolVersion: string | undefined;
  listTools(): Promise<{ tools: Array<{ name: string; title?: string; description?: string; inputSchema: { type: string; properties?: Record<string, unknown> }; outputSchema?: unknown; annotations?: Record<string, unknown> }> }>;
  callTool(name: string, args?: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown>; content: unknown[] }>;
  listResources(): Promise<{ resources: Array<{ name: string; uri: string; mimeType?: string }> }>;
  readResource(uri: string): Promise<{ contents: Array<{ uri: string; mimeType?: string; text?: string }> }>;
  close(): Promise<void>;
}

type Connect = (path: string, headers?: Record<string, string>) => Promise<McpClient>;

const connectV1: Connect = async (path, headers = {}) => {
  const client = new ClientV1({ name: 'system-test-2025', version: '1.0.0' });
  const transport = new TransportV1(new URL(`${system.baseUrl}${path}`), { requestInit: { headers } });
  await client.connect(transport);
  return {
    protocolVersion: transport.protocolVersion,
    listTools: () => client.listTools(),
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as ReturnType<McpClient['callTool']>,
    listResources: () => client.listResources(),
    readResource: (uri) => client.readResource({ uri }) as ReturnType<McpClient['readResource']>,
    close: () => client.close(),
  };
};

const connectV2: Connect = async (path, headers = {}) => {
  const client = new ClientV2({ name: 'system-test-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(`${system.baseUrl}${path}`), { requestInit: { headers } }));
  return {
    protocolVersion: client.getNegotiatedProtocolVersion(),
    listTools: () => client.listTools() as ReturnType<McpClient['listTools']>,
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as ReturnType<McpClient['callTool']>,
    listResources: () => client.listResources() as ReturnType<McpClient['listResources']>,
    readResource: (uri) => client.readResource({ uri }) as ReturnType<McpClient['readResource']>,
    close: () => client.close(),
  };
};

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

function buildShopRequest(overrides: Record<string, unknown> = {}) {
  return {
    organization: { name: 'Pizzeria Da Marco', type: 'gastro', contact_name: 'Marco Beispiel', email: 'marco@example.org' },
    shop_name: 'Da Marco Team',
    products: [{ product: 'bio-t-shirt-unisex', colors: ['Schwarz'], designs: [{ position: 'Brust links', width_cm: 9 }] }],
    team_size: 12,
    ...overrides,
  };
}

const TOOLS = ['create_shop_request', 'get_pricing', 'get_product', 'get_quote', 'get_shop_request', 'list_public_shops', 'search_products'];
const RESOURCES = {
  'llms.txt': 'msa://docs/llms.txt',
  'agents.md': 'msa://docs/agents.md',
  'openapi.json': 'msa://docs/openapi.json',
  products: 'msa://catalog/products',
  pricing: 'msa://catalog/pricing',
  'public-shops': 'msa://shops/public',
};

describe.each([
  ['2025-11-25', connectV1],
  ['2026-07-28', connectV2],
] as const)('an MCP client speaking %s through the gateway', (version, connect) => {
  let client: McpClient;

  beforeAll(async () => {
    client = await connect('/mcp');
  });

  afterAll(async () => {
    await client?.close();
  });

  it('negotiates its protocol revision', () => {
    expect(client.protocolVersion).toBe(version);
  });

  it('lists the six tools with schemas and annotations', async () => {
    const { tools } = await client.listTools();

    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema).toBeTruthy();
      expect(tool.annotations?.readOnlyHint).toBe(tool.name !== 'create_shop_request');
    }
  });

  it('calls search_products, get_product, get_pricing and list_public_shops', async () => {
    const search = await client.callTool('search_products', { q: 'polo', limit: 5 });
    const handle = (search.structuredContent?.products as Array<{ handle: string }>)[0]!.handle;
    const product = await client.callTool('get_product', { handle });
    const pricing = await client.callTool('get_pricing');
    const shops = await client.callTool('list_public_shops', { category: 'schule' });

    expect(search.isError).toBeFalsy();
    expect(product.structuredContent).toMatchObject({ handle, currency: 'EUR', url: `${system.baseUrl}/v1/products/${handle}` });
    expect(pricing.structuredContent).toMatchObject({ minimum_order_quantity: 1, currency: 'EUR' });
    expect((shops.structuredContent?.shops as Array<{ category: string }>).every((s) => s.category === 'schule')).toBe(true);
  });

  it('gets a tool error with the API envelope for an unknown product', async () => {
    const result = await client.callTool('get_product', { handle: 'no-such-product' });

    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'product_not_found', status: 404, docs: `${system.baseUrl}/developers#product_not_found` },
    });
  });

  it('is refused with 401 and a Bearer challenge for create_shop_request without credentials on /mcp', async () => {
    const failure = await client.callTool('create_shop_request', buildShopRequest()).catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/401|unauthorized/i);
  });

  it('creates a sandbox shop request without credentials on /sandbox/mcp', async () => {
    const sandboxClient = await connect('/sandbox/mcp');

    const result = await sandboxClient.callTool('create_shop_request', buildShopRequest());
    await sandboxClient.close();

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'received', sandbox: true, shop_type: 'b2b' });
    expect(await queue.getJob(result.structuredContent!.id as string)).toBeUndefined();
  });

  it('lists the six resources and reads each', async () => {
    const { resources } = await client.listResources();

    expect(Object.fromEntries(resources.map((r) => [r.name, r.uri]))).toEqual(RESOURCES);
    for (const r of resources) {
      const { contents } = await client.readResource(r.uri);
      expect(contents[0]?.mimeType).toBe(r.mimeType);
      expect(contents[0]?.text?.length).toBeGreaterThan(100);
    }
    const openapi = JSON.parse((await client.readResource(RESOURCES['openapi.json'])).contents[0]!.text!);
    expect(JSON.stringify(openapi)).toContain(`"operationId":"${OPERATION_IDS[0]}"`);
    const products = JSON.parse((await client.readResource(RESOURCES.products)).contents[0]!.text!);
    expect(products.total).toBe(products.products.length);
  });
});

describe('create_shop_request and credentials', () => {
  it('is live with a live key on /mcp and hands the request to the intake queue', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });
    const client = await connectV1('/mcp', bearer(key.api_key));

    const result = await client.callTool('create_shop_request', buildShopRequest());
    await client.close();

    expect(result.structuredContent).toMatchObject({ status: 'received', sandbox: false });
    const job = await queue.getJob(result.structuredContent!.id as string);
    expect(job?.data.result.id).toBe(result.structuredContent!.id);
  });

  it('stays on the sandbox with a sandbox key', async () => {
    const key = await createKey(system.baseUrl, { mode: 'sandbox' });
    const client = await connectV2('/mcp', bearer(key.api_key));

    const result = await client.callTool('create_shop_request', buildShopRequest());
    await client.close();

    expect(result.structuredContent).toMatchObject({ sandbox: true });
  });

  it('stays on the sandbox with a live key on /sandbox/mcp', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });
    const client = await connectV2('/sandbox/mcp', bearer(key.api_key));

    const result = await client.callTool('create_shop_request', buildShopRequest());
    const llms = await client.readResource(RESOURCES['llms.txt']);
    await client.close();

    expect(result.structuredContent).toMatchObject({ sandbox: true });
    expect(await queue.getJob(result.structuredContent!.id as string)).toBeUndefined();
    expect(llms.contents[0]!.text).toContain(`${system.baseUrl}/sandbox/v1/products`);
  });

  it('explains how to get live credentials when called without any on /sandbox/mcp', async () => {
    const client = await connectV1('/sandbox/mcp');

    const result = await client.callTool('create_shop_request', buildShopRequest());
    await client.close();

    expect(result.structuredContent?.next_steps).toContain(`${system.baseUrl}/v1/keys`);
  });

  it('answers a key without requests:write with 403 insufficient_scope', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live', scopes: ['catalog:read'] });
    const client = await connectV1('/mcp', bearer(key.api_key));

    const failure = await client.callTool('create_shop_request', buildShopRequest()).catch((err: unknown) => err);
    await client.close();

    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('insufficient_scope');
  });

  it(`stops live requests after ${LIMITS.liveShopRequestsPerDay} a day for one key, with rate_limited`, async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });
    const client = await connectV1('/mcp', bearer(key.api_key));

    const accepted = [];
    for (let i = 0; i < LIMITS.liveShopRequestsPerDay; i++) accepted.push(await client.callTool('create_shop_request', buildShopRequest()));
    const refused = await client.callTool('create_shop_request', buildShopRequest());
    await client.close();

    expect(accepted.every((r) => r.structuredContent?.sandbox === false)).toBe(true);
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toMatchObject({ error: { code: 'rate_limited', status: 429 } });
  });

  it('replays the first result for a repeated idempotency key', async () => {
    const key = await createKey(system.baseUrl, { mode: 'sandbox' });
    const client = await connectV2('/mcp', bearer(key.api_key));
    const args = { ...buildShopRequest(), idempotency_key: `mcp-${Date.now()}` };

    const first = await client.callTool('create_shop_request', args);
    const second = await client.callTool('create_shop_request', args);
    await client.close();

    expect(second.structuredContent?.id).toBe(first.structuredContent?.id);
  });
});

describe('/mcp over plain HTTP through the gateway', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${system.baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
    });

  it('answers a batch with an array', async () => {
    const res = await post('/mcp', [
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);

    const body = (await res.json()) as Array<{ id: number }>;
    expect(res.status).toBe(200);
    expect(body.map((r) => r.id)).toEqual([1, 2]);
  });

  it('accepts a notification with 202', async () => {
    const res = await post('/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' });

    expect(res.status).toBe(202);
    expect(await res.text()).toBe('');
  });

  it('answers GET and DELETE with 405', async () => {
    const get = await fetch(`${system.baseUrl}/mcp`, { headers: { accept: 'text/event-stream' } });
    const del = await fetch(`${system.baseUrl}/mcp`, { method: 'DELETE' });

    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect(del.status).toBe(405);
  });

  // Browser-based clients call from origins of their own; the Host check is what stops DNS rebinding (apps/mcp/test/protocol.test.ts).
  it('answers a browser client on another origin, with CORS and without credentials', async () => {
    const res = await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://inspector.example' });

    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers an invalid API key with 401 and the resource metadata challenge', async () => {
    const res = await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' }, bearer('msa_live_notAKeyThatExists0000000000000000'));

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
