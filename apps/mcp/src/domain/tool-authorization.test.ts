import type { CallContext } from '@msa/contracts';
import { buildPrincipal } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';
import { bearerChallenge, mcpResourceMetadataUrl, toolRefusal } from './tool-authorization.js';

const anonymous: CallContext = { principal: null, sandbox: false, ip: '127.0.0.1', request_id: 'test' };
const call = (name: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

describe('toolRefusal', () => {
  it('refuses create_shop_request without credentials on /mcp, naming its scope', () => {
    expect(toolRefusal(call('create_shop_request'), anonymous)).toEqual({ reason: 'unauthorized', tool: 'create_shop_request', scope: 'requests:write' });
  });

  it('lets create_shop_request through without credentials on the sandbox', () => {
    expect(toolRefusal(call('create_shop_request'), { ...anonymous, sandbox: true })).toBeNull();
  });

  it('refuses credentials without the scope on either path', () => {
    const principal = buildPrincipal({ scopes: ['catalog:read'] });

    for (const sandbox of [false, true]) {
      expect(toolRefusal(call('create_shop_request'), { ...anonymous, principal, sandbox })).toMatchObject({ reason: 'insufficient_scope' });
    }
  });

  it('lets credentials with the scope through', () => {
    expect(toolRefusal(call('create_shop_request'), { ...anonymous, principal: buildPrincipal() })).toBeNull();
  });

  it('asks requests:read of get_shop_request: refused without credentials on /mcp, open on the sandbox', () => {
    expect(toolRefusal(call('get_shop_request'), anonymous)).toEqual({ reason: 'unauthorized', tool: 'get_shop_request', scope: 'requests:read' });
    expect(toolRefusal(call('get_shop_request'), { ...anonymous, sandbox: true })).toBeNull();
    expect(toolRefusal(call('get_shop_request'), { ...anonymous, principal: buildPrincipal({ scopes: ['requests:write'] }) })).toEqual({
      reason: 'insufficient_scope',
      tool: 'get_shop_request',
      scope: 'requests:read',
    });
  });

  it('leaves reads, other methods and malformed messages alone', () => {
    for (const body of [call('search_products'), call(42), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, null, 'x', { method: 'tools/call' }]) {
      expect(toolRefusal(body, anonymous)).toBeNull();
    }
  });

  it('refuses a batch that holds one such call', () => {
    expect(toolRefusal([call('get_pricing', 1), call('create_shop_request', 2)], anonymous)).toMatchObject({ reason: 'unauthorized' });
    expect(toolRefusal([call('get_pricing', 1)], anonymous)).toBeNull();
  });
});

describe('bearerChallenge', () => {
  const metadata = mcpResourceMetadataUrl('https://api.example.org', false);

  it('names the metadata and the scope, with no error code, when no credentials were sent', () => {
    expect(bearerChallenge({ reason: 'unauthorized', tool: 'create_shop_request', scope: 'requests:write' }, metadata)).toBe(
      'Bearer resource_metadata="https://api.example.org/.well-known/oauth-protected-resource/mcp", scope="requests:write"',
    );
  });

  it('asks for a step-up with insufficient_scope', () => {
    expect(bearerChallenge({ reason: 'insufficient_scope', tool: 'create_shop_request', scope: 'requests:write' }, metadata)).toBe(
      'Bearer error="insufficient_scope", scope="requests:write", resource_metadata="https://api.example.org/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('points at the sandbox resource in the path-insertion form', () => {
    expect(mcpResourceMetadataUrl('https://api.example.org', true)).toBe('https://api.example.org/.well-known/oauth-protected-resource/sandbox/mcp');
  });
});
