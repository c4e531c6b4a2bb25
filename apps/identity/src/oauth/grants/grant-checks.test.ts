import type { TokenRequest } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import type { AuthorizationCode, Grant } from '../store/oauth-records.js';
import { checkClientCredentialsRequest, checkCodeRedemption, checkRefresh, checkResource, publicClientId } from './grant-checks.js';

const BASE = 'https://api.example.test';
// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function buildBody(overrides: Partial<TokenRequest> = {}): TokenRequest {
  return { grant_type: 'authorization_code', client_id: 'msa_pub_abc', ...overrides } as TokenRequest;
}

function buildCode(): AuthorizationCode {
  return {
    request: {
      client_id: 'msa_pub_abc', client_name: 'Host', client_verified: false, redirect_uri: 'https://host.example/cb', redirect_uri_sent: true,
      code_challenge: CHALLENGE, scopes: ['catalog:read'], resource: `${BASE}/mcp`, sandbox: false,
    },
    approval: { email: 'erika@example.org', mode: 'live' },
    grant_id: 'gABCDEFGHIJKLMNOPQRSTUVWX',
  };
}

function buildGrant(): Grant {
  return {
    grant_id: 'gABCDEFGHIJKLMNOPQRSTUVWX', client_id: 'msa_pub_abc', client_name: 'Host', scopes: ['catalog:read', 'shops:read'],
    resource: BASE, sandbox: false, approval: { email: 'erika@example.org', mode: 'live' }, created_at: '2026-01-01T00:00:00.000Z',
  };
}

const ask = { clientId: 'msa_pub_abc', verifier: VERIFIER, sandbox: false, publicBaseUrl: BASE };

describe('publicClientId', () => {
  it('refuses a secret or Basic credentials on a public client grant', () => {
    expect(() => publicClientId(buildBody({ client_secret: 'x' }), undefined)).toThrow(expect.objectContaining({ code: 'invalid_client' }));
    expect(() => publicClientId(buildBody(), 'Basic abc')).toThrow(expect.objectContaining({ code: 'invalid_client' }));
  });
});

describe('checkCodeRedemption', () => {
  it('gives the audience the authorization request named', () => {
    expect(checkCodeRedemption(buildCode(), buildBody({ redirect_uri: 'https://host.example/cb' }), ask)).toBe(`${BASE}/mcp`);
  });

  it('refuses another client, the other issuer, another redirect URI or a wrong verifier', () => {
    const body = buildBody({ redirect_uri: 'https://host.example/cb' });
    expect(() => checkCodeRedemption(buildCode(), body, { ...ask, clientId: 'msa_pub_other' })).toThrow('issued to another client');
    expect(() => checkCodeRedemption(buildCode(), body, { ...ask, sandbox: true })).toThrow("other environment's issuer");
    expect(() => checkCodeRedemption(buildCode(), buildBody(), ask)).toThrow('redirect_uri differs');
    expect(() => checkCodeRedemption(buildCode(), body, { ...ask, verifier: `${VERIFIER.slice(0, -1)}Y` })).toThrow('code_verifier does not match');
  });
});

describe('checkRefresh', () => {
  it('narrows the scopes and keeps the audience of the grant', () => {
    expect(checkRefresh(buildGrant(), buildBody({ scope: 'shops:read' }), ask)).toEqual({ scopes: ['shops:read'], audience: BASE });
  });

  it('refuses a scope the grant does not hold', () => {
    expect(() => checkRefresh(buildGrant(), buildBody({ scope: 'requests:write' }), ask)).toThrow(expect.objectContaining({ code: 'invalid_scope' }));
  });
});

describe('checkResource', () => {
  it('forgives a trailing slash and refuses another resource', () => {
    expect(checkResource(BASE, BASE, `${BASE}/`)).toBe(`${BASE}/`);
    expect(() => checkResource(BASE, BASE, `${BASE}/mcp`)).toThrow(expect.objectContaining({ code: 'invalid_target' }));
  });
});

describe('checkClientCredentialsRequest', () => {
  it('refuses a scope not granted, naming it', () => {
    expect(() => checkClientCredentialsRequest(['catalog:read'], buildBody({ scope: 'shops:read' }), BASE)).toThrow("'shops:read' is not granted to this client");
  });

  it('gives the base URL as audience without a resource', () => {
    expect(checkClientCredentialsRequest(['catalog:read'], buildBody(), BASE)).toEqual({ scopes: ['catalog:read'], audience: BASE });
  });
});
