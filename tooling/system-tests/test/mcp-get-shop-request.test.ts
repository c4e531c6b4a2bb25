// Reading a shop request back over MCP, through the gateway, with the SDK's
// own clients of both protocol eras (SDK v1 speaking 2025-11-25, SDK v2
// pinned to 2026-07-28): get_shop_request answers like GET
// /v1/shop-requests/{id}, its 404 and 403 as tool errors carrying the error
// envelope; it needs requests:read, so /mcp challenges a caller without
// credentials, while /sandbox/mcp reads back what the same address created
// there. And create_shop_request's idempotency key as the 2026-07-28 client
// mirrors it into Mcp-Param-Idempotency-Key.
import { Client as ClientV2, ClientCredentialsProvider as ProviderV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { ClientCredentialsProvider as ProviderV1 } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let system: System;
let base: string;

beforeAll(async () => {
  system = await startSystem({ name: 'mcp-get-shop-request', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000', RATE_LIMIT_PER_MINUTE: '10000' } });
  base = system.baseUrl;
});

afterAll(async () => {
  await system?.close();
});

interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** What the tests need from either SDK's client. */
interface McpClient {
  listTools(): Promise<{ tools: Array<{ name: string; inputSchema: { required?: string[]; properties?: Record<string, Record<string, unknown>> }; annotations?: Record<string, unknown> }> }>;
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

interface Sent {
  url: string;
  headers: Headers;
  body: string;
}

/** A fetch that keeps what it sends, so a test can look at the headers a client chose. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    sent.push({ url, headers: new Headers(init?.headers), body: typeof init?.body === 'string' ? init.body : String(init?.body ?? '') });
    return fetch(input, init);
  };
}

type Connect = (path: string, opts?: { headers?: Record<string, string>; sent?: Sent[] }) => Promise<McpClient>;

const connectV1: Connect = async (path, { headers = {}, sent = [] } = {}) => {
  const client = new ClientV1({ name: 'readback-2025', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${base}${path}`), { requestInit: { headers }, fetch: recordingFetch(sent) }));
  return {
    listTools: () => client.listTools() as ReturnType<McpClient['listTools']>,
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<ToolResult>,
    close: () => client.close(),
  };
};

const connectV2: Connect = async (path, { headers = {}, sent = [] } = {}) => {
  const client = new ClientV2({ name: 'readback-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(`${base}${path}`), { requestInit: { headers }, fetch: recordingFetch(sent) }));
  return {
    listTools: () => client.listTools() as ReturnType<McpClient['listTools']>,
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as Promise<ToolResult>,
    close: () => client.close(),
  };
};

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

function buildShopRequest(overrides: Record<string, unknown> = {}) {
  return {
    organization: { name: 'Turnverein Beispielstadt', type: 'verein', contact_name: 'Petra Beispiel', email: 'petra@example.org' },
    shop_name: 'TV Beispielstadt Fanshop',
    products: [{ product: 'bio-t-shirt-unisex', colors: ['Schwarz'], designs: [{ position: 'Brust links', width_cm: 9 }] }],
    ...overrides,
  };
}

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

describe.each([
  ['2025-11-25 (SDK v1)', connectV1],
  ['2026-07-28 (SDK v2)', connectV2],
] as const)('get_shop_request from an MCP client speaking %s', (_label, connect) => {
  let owner: Awaited<ReturnType<typeof createKey>>;
  let client: McpClient;
  let created: ToolResult;

  beforeAll(async () => {
    owner = await createKey(base, { mode: 'sandbox' });
    client = await connect('/mcp', { headers: bearer(owner.api_key) });
    created = await client.callTool('create_shop_request', buildShopRequest());
  });

  afterAll(async () => {
    await client?.close();
  });

  it('is listed as a read-only tool taking an id', async () => {
    const { tools } = await client.listTools();

    const tool = tools.find((t) => t.name === 'get_shop_request');
    expect(tool?.inputSchema.required).toEqual(['id']);
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });

  it('reads back the request created with the same key, as create_shop_request returned it and as REST reads it', async () => {
    const id = created.structuredContent!.id as string;

    const read = await client.callTool('get_shop_request', { id });
    const rest = await fetch(`${base}/v1/shop-requests/${id}`, { headers: bearer(owner.api_key) });

    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual(created.structuredContent);
    expect(read.structuredContent).toEqual(await rest.json());
  });

  it('answers an unknown id with the 404 envelope as a tool error', async () => {
    const read = await client.callTool('get_shop_request', { id: 'req_0000000000000000' });

    expect(read.isError).toBe(true);
    expect(read.structuredContent).toMatchObject({
      error: { code: 'shop_request_not_found', status: 404, docs: `${base}/developers#shop_request_not_found` },
    });
  });

  it("answers another principal's request with the 403 envelope as a tool error", async () => {
    const other = await createKey(base, { mode: 'sandbox' });
    const otherClient = await connect('/mcp', { headers: bearer(other.api_key) });

    const read = await otherClient.callTool('get_shop_request', { id: created.structuredContent!.id as string });
    await otherClient.close();

    expect(read.isError).toBe(true);
    expect(read.structuredContent).toMatchObject({ error: { code: 'forbidden', status: 403 } });
  });

  it('is refused with 401 without credentials on /mcp', async () => {
    const anonymous = await connect('/mcp');

    const failure = await anonymous.callTool('get_shop_request', { id: created.structuredContent!.id as string }).catch((err: unknown) => err);
    await anonymous.close();

    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/401|unauthorized/i);
  });

  it('without credentials on /sandbox/mcp reads back what the same address created there, and not a key holder’s request', async () => {
    const anonymous = await connect('/sandbox/mcp');

    const mine = await anonymous.callTool('create_shop_request', buildShopRequest({ shop_name: 'Anonym auf dem Sandkasten' }));
    const read = await anonymous.callTool('get_shop_request', { id: mine.structuredContent!.id as string });
    const keyHolders = await anonymous.callTool('get_shop_request', { id: created.structuredContent!.id as string });
    await anonymous.close();

    expect(read.structuredContent).toMatchObject({ id: mine.structuredContent!.id, sandbox: true, status: 'received' });
    expect(keyHolders.structuredContent).toMatchObject({ error: { code: 'forbidden', status: 403 } });
  });
});

describe('get_shop_request over plain HTTP through the gateway', () => {
  const readCall = { jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 'get_shop_request', arguments: { id: 'req_0123456789abcdef' } } };

  it('without credentials on /mcp answers the mcp service 401, its challenge naming requests:read', async () => {
    const res = await post('/mcp', readCall);
    const body = (await res.json()) as { id: number; error: { data: { error: { code: string } } } };

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="requests:read"`);
    expect(body.id).toBe(11);
    expect(body.error.data.error.code).toBe('unauthorized');
  });

  it('with a key without requests:read answers 403 insufficient_scope with a step-up challenge', async () => {
    const key = await createKey(base, { mode: 'sandbox', scopes: ['catalog:read', 'requests:write'] });

    const res = await post('/mcp', readCall, bearer(key.api_key));

    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="requests:read", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});

// v2 asks the token endpoint for the challenge's scope, v1's client
// credentials grant for none (the token then carries every scope).
describe.each([
  ['2025-11-25 (SDK v1)', 1, null],
  ['2026-07-28 (SDK v2)', 2, 'requests:read'],
] as const)('an MCP client with an OAuth provider, speaking %s', (_label, sdk, askedScope) => {
  it('authorizes when get_shop_request asks, then reads back a request its key created', async () => {
    const creds = await createKey(base, { mode: 'sandbox' });
    const created = await fetch(`${base}/v1/shop-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(creds.api_key) },
      body: JSON.stringify(buildShopRequest()),
    });
    const { id } = (await created.json()) as { id: string };
    const sent: Sent[] = [];
    const client =
      sdk === 1
        ? new ClientV1({ name: 'oauth-readback-2025', version: '1.0.0' })
        : new ClientV2({ name: 'oauth-readback-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const provider = { clientId: creds.client_id, clientSecret: creds.client_secret, expectedIssuer: base };
    if (client instanceof ClientV1) {
      await client.connect(new TransportV1(new URL(`${base}/mcp`), { authProvider: new ProviderV1(provider), fetch: recordingFetch(sent) }));
    } else {
      await client.connect(new TransportV2(new URL(`${base}/mcp`), { authProvider: new ProviderV2(provider), fetch: recordingFetch(sent) }));
    }

    const read = (await client.callTool({ name: 'get_shop_request', arguments: { id } })) as ToolResult;
    await client.close();

    const tokenRequest = sent.find((s) => s.url === `${base}/oauth/token`);
    expect(tokenRequest).toBeDefined();
    const grant = new URLSearchParams(tokenRequest!.body);
    expect(grant.get('grant_type')).toBe('client_credentials');
    expect(grant.get('scope')).toBe(askedScope);
    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ id, sandbox: true });
  });
});

describe('create_shop_request and Mcp-Param-Idempotency-Key through the gateway', () => {
  it('the 2026-07-28 client mirrors idempotency_key into the header, and a retry replays the first result', async () => {
    const key = await createKey(base, { mode: 'sandbox' });
    const sent: Sent[] = [];
    const client = await connectV2('/mcp', { headers: bearer(key.api_key), sent });
    const args = { ...buildShopRequest(), idempotency_key: `mirror-${Date.now()}` };

    await client.listTools();
    const first = await client.callTool('create_shop_request', args);
    const second = await client.callTool('create_shop_request', args);
    await client.close();

    const calls = sent.filter((s) => s.headers.get('mcp-method') === 'tools/call');
    expect(calls.map((s) => s.headers.get('mcp-param-idempotency-key'))).toEqual([args.idempotency_key, args.idempotency_key]);
    expect(second.structuredContent?.id).toBe(first.structuredContent?.id);
  });

  it('a 2025 call honours the header alone, and refuses a header that differs from the argument', async () => {
    const key = await createKey(base, { mode: 'sandbox' });
    const call = (id: number, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'create_shop_request', arguments: args } });
    const headers = { ...bearer(key.api_key), 'Mcp-Param-Idempotency-Key': `header-${Date.now()}` };

    const first = (await (await post('/mcp', call(1, buildShopRequest()), headers)).json()) as { result: ToolResult };
    const second = (await (await post('/mcp', call(2, buildShopRequest()), headers)).json()) as { result: ToolResult };
    const differs = (await (await post('/mcp', call(3, { ...buildShopRequest(), idempotency_key: 'another-key' }), headers)).json()) as { result: ToolResult };

    expect(first.result.structuredContent?.id).toMatch(/^req_/);
    expect(second.result.structuredContent?.id).toBe(first.result.structuredContent?.id);
    expect(differs.result.isError).toBe(true);
    expect(differs.result.structuredContent).toMatchObject({ error: { code: 'validation_failed', fields: [{ field: 'idempotency_key' }] } });
  });
});
