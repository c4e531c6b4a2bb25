// A browser-based MCP client on another origin (the MCP Inspector, a web
// host) through the whole system: its preflights, the discovery documents,
// the mcp service's 401 challenge it must read to sign in, and a tool call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';

const ORIGIN = 'https://web-host.example';

let system: System;
let base: string;

beforeAll(async () => {
  system = await startSystem({ name: 'browser-clients', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000' } });
  base = system.baseUrl;
});

afterAll(async () => {
  await system?.close();
});

function preflight(path: string) {
  return fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
  });
}

function mcpPost(path: string, body: unknown) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { origin: ORIGIN, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(body),
  });
}

describe('a browser client on another origin', () => {
  it('gets its preflights of /mcp and the token endpoint answered, live and sandbox', async () => {
    for (const path of ['/mcp', '/sandbox/mcp', '/oauth/token', '/oauth/register']) {
      const res = await preflight(path);

      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(res.headers.get('access-control-allow-headers'), path).toContain('Authorization');
    }
  });

  it('reads the resource metadata the challenge names, and the authorization server metadata with offline_access', async () => {
    const resource = await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { headers: { origin: ORIGIN } });
    const server = await fetch(`${base}/.well-known/oauth-authorization-server`, { headers: { origin: ORIGIN } });

    expect(resource.headers.get('access-control-allow-origin')).toBe('*');
    expect(server.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await server.json()) as { scopes_supported: string[] }).scopes_supported).toContain('offline_access');
    expect(((await resource.json()) as { scopes_supported: string[] }).scopes_supported).not.toContain('offline_access');
  });

  it('calls a tool on /mcp and reads the Bearer challenge of one that needs sign-in', async () => {
    const search = await mcpPost('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_products', arguments: {} } });
    const create = await mcpPost('/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_shop_request', arguments: {} } });

    expect(search.status).toBe(200);
    expect(search.headers.get('access-control-allow-origin')).toBe('*');
    expect(((await search.json()) as { result: { isError?: boolean } }).result.isError).toBeFalsy();
    expect(create.status).toBe(401);
    expect(create.headers.get('access-control-allow-origin')).toBe('*');
    expect(create.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    expect(create.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});
