import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity('identity-discovery');
});
afterAll(async () => {
  await h.close();
});

describe('GET /.well-known/oauth-authorization-server', () => {
  it('describes the production authorization server', async () => {
    const res = await h.api.get('/.well-known/oauth-authorization-server').set(h.as());

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body).toEqual({
      issuer: TEST_BASE_URL,
      authorization_endpoint: `${TEST_BASE_URL}/oauth/authorize`,
      token_endpoint: `${TEST_BASE_URL}/oauth/token`,
      registration_endpoint: `${TEST_BASE_URL}/oauth/register`,
      revocation_endpoint: `${TEST_BASE_URL}/oauth/revoke`,
      jwks_uri: `${TEST_BASE_URL}/.well-known/jwks.json`,
      scopes_supported: ['catalog:read', 'shops:read', 'requests:write', 'requests:read', 'offline_access'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      ui_locales_supported: ['de', 'en'],
      service_documentation: `${TEST_BASE_URL}/developers`,
      op_policy_uri: `${TEST_BASE_URL}/privacy`,
      op_tos_uri: `${TEST_BASE_URL}/terms`,
    });
  });

  it('describes the sandbox with the sandbox issuer and URLs', async () => {
    const res = await h.api.get('/.well-known/oauth-authorization-server').set(h.as({ sandbox: true }));

    expect(res.body).toMatchObject({
      issuer: `${TEST_BASE_URL}/sandbox`,
      token_endpoint: `${TEST_BASE_URL}/sandbox/oauth/token`,
      jwks_uri: `${TEST_BASE_URL}/sandbox/.well-known/jwks.json`,
      op_policy_uri: `${TEST_BASE_URL}/sandbox/privacy`,
      op_tos_uri: `${TEST_BASE_URL}/sandbox/terms`,
    });
  });
});

describe('GET /.well-known/oauth-protected-resource', () => {
  it('names the resource and its authorization server', async () => {
    const res = await h.api.get('/.well-known/oauth-protected-resource').set(h.as());

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      resource: TEST_BASE_URL,
      authorization_servers: [TEST_BASE_URL],
      scopes_supported: ['catalog:read', 'shops:read', 'requests:write', 'requests:read'],
      bearer_methods_supported: ['header'],
      resource_documentation: `${TEST_BASE_URL}/developers`,
    });
  });
});

describe('GET /.well-known/oauth-protected-resource/mcp', () => {
  it('names the MCP endpoint as the resource, with the same authorization server', async () => {
    const res = await h.api.get('/.well-known/oauth-protected-resource/mcp').set(h.as());

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body).toMatchObject({ resource: `${TEST_BASE_URL}/mcp`, authorization_servers: [TEST_BASE_URL] });
  });

  it('names the sandbox MCP endpoint on the sandbox', async () => {
    const res = await h.api.get('/.well-known/oauth-protected-resource/mcp').set(h.as({ sandbox: true }));

    expect(res.body).toMatchObject({ resource: `${TEST_BASE_URL}/sandbox/mcp`, authorization_servers: [`${TEST_BASE_URL}/sandbox`] });
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the signing key as a cacheable ES256 JWK set without private parts', async () => {
    const res = await h.api.get('/.well-known/jwks.json').set(h.as());

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.body.keys).toEqual([
      { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: 'test-key-1', alg: 'ES256', use: 'sig' },
    ]);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz without internal authentication', async () => {
    expect((await h.api.get('/healthz')).status).toBe(200);
    expect((await h.api.get('/readyz')).body).toEqual({ status: 'ready' });
  });
});
