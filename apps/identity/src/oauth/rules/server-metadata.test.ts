import { describe, expect, it } from 'vitest';
import { authorizationServerMetadata, protectedResourceMetadata } from './server-metadata.js';

const BASE = 'https://api.example.test';

describe('authorizationServerMetadata', () => {
  it('names the production endpoints with the base as issuer', () => {
    expect(authorizationServerMetadata(BASE, false)).toMatchObject({
      issuer: BASE,
      token_endpoint: `${BASE}/oauth/token`,
      registration_endpoint: `${BASE}/oauth/register`,
      jwks_uri: `${BASE}/.well-known/jwks.json`,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      revocation_endpoint: `${BASE}/oauth/revoke`,
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      scopes_supported: ['catalog:read', 'shops:read', 'requests:write', 'requests:read', 'offline_access'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('puts every URL and the issuer under /sandbox on the sandbox', () => {
    const doc = authorizationServerMetadata(BASE, true);

    expect(doc.issuer).toBe(`${BASE}/sandbox`);
    for (const url of [doc.authorization_endpoint, doc.token_endpoint, doc.registration_endpoint, doc.revocation_endpoint, doc.jwks_uri, doc.service_documentation]) {
      expect(url.startsWith(`${BASE}/sandbox/`)).toBe(true);
    }
  });
});

describe('authorizationServerMetadata: policy and terms', () => {
  it('names the privacy notice and the terms of use of its own environment (op_policy_uri, op_tos_uri)', () => {
    const production = authorizationServerMetadata(BASE, false);
    const sandbox = authorizationServerMetadata(BASE, true);

    expect(production).toMatchObject({ op_policy_uri: `${BASE}/privacy`, op_tos_uri: `${BASE}/terms` });
    expect(sandbox).toMatchObject({ op_policy_uri: `${BASE}/sandbox/privacy`, op_tos_uri: `${BASE}/sandbox/terms` });
  });
});

describe('protectedResourceMetadata', () => {
  it('points at the authorization server of the same path', () => {
    expect(protectedResourceMetadata(BASE, true)).toMatchObject({
      resource: `${BASE}/sandbox`,
      authorization_servers: [`${BASE}/sandbox`],
      bearer_methods_supported: ['header'],
    });
  });

  it('lists only the API\'s own scopes, without offline_access, which is the authorization server\'s', () => {
    expect(protectedResourceMetadata(BASE, false, 'mcp').scopes_supported).toEqual(['catalog:read', 'shops:read', 'requests:write', 'requests:read']);
  });

  it('describes the MCP endpoint as its own resource', () => {
    expect(protectedResourceMetadata(BASE, false, 'mcp')).toMatchObject({ resource: `${BASE}/mcp`, authorization_servers: [BASE] });
    expect(protectedResourceMetadata(BASE, true, 'mcp')).toMatchObject({
      resource: `${BASE}/sandbox/mcp`,
      authorization_servers: [`${BASE}/sandbox`],
    });
  });
});
