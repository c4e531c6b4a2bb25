// Authorization per tool on the MCP endpoint, through the gateway: the mcp
// service's 401 and 403 challenges reach the host unchanged, the SDK clients
// of both protocol eras follow the 401 with an OAuth provider and retry with
// a token, an interactive host is sent to sign in at that moment, and
// anonymous reads and the sandbox stay open.
import { Client as ClientV2, ClientCredentialsProvider as ProviderV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { ClientCredentialsProvider as ProviderV1 } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let system: System;
let base: string;

beforeAll(async () => {
  system = await startSystem({ name: 'mcp-authorization', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000', RATE_LIMIT_PER_MINUTE: '10000' } });
  base = system.baseUrl;
});

afterAll(async () => {
  await system?.close();
});

const shopRequest = {
  organization: { name: 'Pizzeria Da Marco', type: 'gastro', contact_name: 'Marco Beispiel', email: 'marco@example.org' },
  shop_name: 'Da Marco Team',
  products: [{ product: 'bio-t-shirt-unisex', colors: ['Schwarz'], designs: [{ position: 'Brust links', width_cm: 9 }] }],
  team_size: 12,
};

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

const createCall = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'create_shop_request', arguments: shopRequest } };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('create_shop_request through the gateway', () => {
  it('without credentials on /mcp answers the mcp service 401, its Bearer challenge unchanged', async () => {
    const res = await post('/mcp', createCall);
    const body = (await res.json()) as { id: number; error: { message: string; data: { error: { code: string } } } };

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="requests:write"`);
    expect(body.id).toBe(7);
    expect(body.error.data.error.code).toBe('unauthorized');
    expect(body.error.message).toContain('OAuth');
    expect(res.headers.get('ratelimit-policy')).toContain('anonymous-per-minute');
  });

  it('names resource metadata that describes /mcp and offers requests:write', async () => {
    const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`);
    const metadata = (await res.json()) as { resource: string; scopes_supported: string[] };

    expect(metadata.resource).toBe(`${base}/mcp`);
    expect(metadata.scopes_supported).toContain('requests:write');
  });

  it('with a key without requests:write answers 403 insufficient_scope with a step-up challenge', async () => {
    const key = await createKey(base, { mode: 'live', scopes: ['catalog:read'] });

    const res = await post('/mcp', createCall, bearer(key.api_key));
    const body = (await res.json()) as { error: { data: { error: { code: string } } } };

    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="insufficient_scope", scope="requests:write", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    );
    expect(body.error.data.error.code).toBe('insufficient_scope');
  });

  it('with such a key on /sandbox/mcp names the sandbox MCP metadata, and a sandbox key on /mcp the /mcp metadata', async () => {
    const live = await createKey(base, { mode: 'live', scopes: ['catalog:read'] });
    const sandboxKey = await createKey(base, { mode: 'sandbox', scopes: ['catalog:read'] });

    const onSandboxPath = await post('/sandbox/mcp', createCall, bearer(live.api_key));
    const sandboxKeyOnMcp = await post('/mcp', createCall, bearer(sandboxKey.api_key));
    const metadata = (await (await fetch(`${base}/.well-known/oauth-protected-resource/sandbox/mcp`)).json()) as { resource: string };

    expect(onSandboxPath.status).toBe(403);
    expect(onSandboxPath.headers.get('www-authenticate')).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/sandbox/mcp"`);
    expect(metadata.resource).toBe(`${base}/sandbox/mcp`);
    expect(sandboxKeyOnMcp.status).toBe(403);
    expect(sandboxKeyOnMcp.headers.get('www-authenticate')).toContain(`resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`);
  });

  it('in a batch without credentials answers 401 for the whole batch', async () => {
    const res = await post('/mcp', [{ jsonrpc: '2.0', id: 1, method: 'ping' }, createCall]);

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('scope="requests:write"');
    expect(((await res.json()) as { id: unknown }).id).toBeNull();
  });

  it('without credentials on /sandbox/mcp is still a sandbox request', async () => {
    const res = await post('/sandbox/mcp', createCall);
    const body = (await res.json()) as { result: { structuredContent: { sandbox: boolean; status: string } } };

    expect(res.status).toBe(200);
    expect(body.result.structuredContent).toMatchObject({ status: 'received', sandbox: true });
  });

  it('with an invalid bearer token on /mcp is still the gateway 401 with invalid_token', async () => {
    const res = await post('/mcp', createCall, bearer('eyJhbGciOiJFUzI1NiJ9.e30.c2ln'));

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`);
  });
});

describe('anonymous reads on /mcp through the gateway', () => {
  it('stay open', async () => {
    const res = await post('/mcp', [
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_pricing', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'msa://docs/agents.md' } },
    ]);
    const body = (await res.json()) as Array<{ error?: unknown }>;

    expect(res.status).toBe(200);
    expect(body.every((answer) => answer.error === undefined)).toBe(true);
  });
});

/** Every request a client sends, with whether it carried credentials. */
interface Sent {
  url: string;
  authorized: boolean;
  body: string;
}

function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    const url = input instanceof Request ? input.url : String(input);
    sent.push({ url, authorized: headers.has('authorization'), body: typeof init?.body === 'string' ? init.body : String(init?.body ?? '') });
    return fetch(input, init);
  };
}

/** What a test needs from either SDK's client. */
interface OAuthMcpClient {
  callTool(name: string, args?: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent?: Record<string, unknown> }>;
  close(): Promise<void>;
}

type ConnectWithOAuth = (path: string, creds: { client_id: string; client_secret: string }, sent: Sent[]) => Promise<OAuthMcpClient>;

const connectV1: ConnectWithOAuth = async (path, creds, sent) => {
  const authProvider = new ProviderV1({ clientId: creds.client_id, clientSecret: creds.client_secret, expectedIssuer: base });
  const client = new ClientV1({ name: 'oauth-host-2025', version: '1.0.0' });
  await client.connect(new TransportV1(new URL(`${base}${path}`), { authProvider, fetch: recordingFetch(sent) }));
  return { callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as ReturnType<OAuthMcpClient['callTool']>, close: () => client.close() };
};

const connectV2: ConnectWithOAuth = async (path, creds, sent) => {
  const authProvider = new ProviderV2({ clientId: creds.client_id, clientSecret: creds.client_secret, expectedIssuer: base });
  const client = new ClientV2({ name: 'oauth-host-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(`${base}${path}`), { authProvider, fetch: recordingFetch(sent) }));
  return { callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as ReturnType<OAuthMcpClient['callTool']>, close: () => client.close() };
};

// The scope each SDK asks the token endpoint for: v2 takes the challenge's,
// v1's client-credentials grant only its provider's own (none here, so the
// token carries every scope of the credentials).
describe.each([
  ['2025-11-25 (SDK v1)', connectV1, null],
  ['2026-07-28 (SDK v2)', connectV2, 'requests:write'],
] as const)('an MCP client with an OAuth provider, speaking %s', (_label, connect, askedScope) => {
  it('reads without a token, and authorizes when create_shop_request asks, then sends it live', async () => {
    const creds = await createKey(base, { mode: 'live' });
    const sent: Sent[] = [];
    const client = await connect('/mcp', creds, sent);

    const pricing = await client.callTool('get_pricing');
    const readsUnauthorized = sent.every((s) => !s.authorized);
    const result = await client.callTool('create_shop_request', shopRequest);
    await client.close();

    expect(pricing.isError).toBeFalsy();
    expect(readsUnauthorized).toBe(true);
    const tokenRequest = sent.find((s) => s.url === `${base}/oauth/token`);
    expect(tokenRequest).toBeDefined();
    const grant = new URLSearchParams(tokenRequest!.body);
    expect(grant.get('grant_type')).toBe('client_credentials');
    expect(grant.get('scope')).toBe(askedScope);
    expect(grant.get('resource')).toBe(`${base}/mcp`);
    expect(sent.at(-1)).toMatchObject({ url: `${base}/mcp`, authorized: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'received', sandbox: false });
  });
});

/**
 * An interactive host (VS Code, Claude Code): it registers itself as a public
 * client and sends the person to the authorization URL. Here the URL is kept
 * instead of opened, so the test can look at it.
 */
function interactiveHost(opened: URL[]): OAuthClientProvider {
  let client: Awaited<ReturnType<OAuthClientProvider['clientInformation']>>;
  let verifier = '';
  return {
    redirectUrl: 'http://127.0.0.1:33418/callback',
    clientMetadata: {
      client_name: 'Interactive MCP host',
      redirect_uris: ['http://127.0.0.1:33418/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    clientInformation: () => client,
    saveClientInformation: (info) => void (client = info),
    tokens: () => undefined,
    saveTokens: () => undefined,
    redirectToAuthorization: (url) => void opened.push(url),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
  };
}

describe('an interactive MCP host (authorization code) without a token', () => {
  it('reads, then is sent to sign in for requests:write on /mcp when create_shop_request asks', async () => {
    const opened: URL[] = [];
    const client = new ClientV1({ name: 'interactive-host', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(`${base}/mcp`), { authProvider: interactiveHost(opened) }));

    const pricing = await client.callTool({ name: 'get_pricing', arguments: {} });
    const openedBeforeCreate = opened.length;
    const failure = await client.callTool({ name: 'create_shop_request', arguments: shopRequest }).catch((err: unknown) => err);
    await client.close();

    expect(pricing.isError).toBeFalsy();
    expect(openedBeforeCreate).toBe(0);
    // The SDK stops here until the person has signed in; it then finishes with the code.
    expect(failure).toBeInstanceOf(UnauthorizedError);
    expect(opened).toHaveLength(1);
    const url = opened[0]!;
    expect(`${url.origin}${url.pathname}`).toBe(`${base}/oauth/authorize`);
    expect(url.searchParams.get('scope')).toBe('requests:write');
    expect(url.searchParams.get('resource')).toBe(`${base}/mcp`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    // The authorization server takes the request and sends the person on to
    // its own sign-in, rather than back to the host with an error.
    const authorize = await fetch(url, { redirect: 'manual' });
    expect(authorize.status).toBeGreaterThanOrEqual(300);
    expect(authorize.status).toBeLessThan(400);
    const next = new URL(authorize.headers.get('location')!, base);
    expect(next.origin).toBe(base);
    expect(next.searchParams.get('error')).toBeNull();
  });
});
