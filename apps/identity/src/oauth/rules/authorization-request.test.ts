import { describe, expect, it } from 'vitest';
import type { ResolvedClient } from '../clients/client-directory.js';
import { checkAuthorizationRequest, redirectUriOf, redirectWith } from './authorization-request.js';

const BASE = 'https://api.example.test';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

function buildClient(overrides: Partial<ResolvedClient> = {}): ResolvedClient {
  return {
    client_id: 'msa_pub_abcdefghijklmnop',
    client_name: 'Test Host',
    redirect_uris: ['https://host.example/cb'],
    scopes: ['catalog:read', 'shops:read'],
    verified: false,
    ...overrides,
  };
}

function buildQuery(overrides: Record<string, unknown> = {}) {
  return { response_type: 'code', code_challenge: CHALLENGE, code_challenge_method: 'S256', state: 'xyz', ...overrides };
}

describe('redirectUriOf', () => {
  it('takes the only registered redirect URI when none is sent', () => {
    expect(redirectUriOf(buildClient(), {})).toEqual({ ok: true, redirectUri: 'https://host.example/cb', sent: false });
  });

  it('refuses a missing redirect URI when the client registered several', () => {
    const client = buildClient({ redirect_uris: ['https://host.example/a', 'https://host.example/b'] });

    expect(redirectUriOf(client, {})).toEqual({ ok: false, detail: 'redirect_uri is missing.' });
  });

  it('refuses a redirect URI the client did not register', () => {
    expect(redirectUriOf(buildClient(), { redirect_uri: 'https://evil.example/cb' })).toEqual({
      ok: false,
      detail: 'redirect_uri is not registered for this client.',
    });
  });

  it('accepts a loopback redirect on another port', () => {
    const client = buildClient({ redirect_uris: ['http://127.0.0.1:3000/cb'] });

    expect(redirectUriOf(client, { redirect_uri: 'http://127.0.0.1:4711/cb' })).toEqual({ ok: true, redirectUri: 'http://127.0.0.1:4711/cb', sent: true });
  });
});

describe('checkAuthorizationRequest', () => {
  it('accepts a complete request with the client scopes and the base URL as resource', () => {
    expect(checkAuthorizationRequest(buildClient(), buildQuery(), BASE)).toEqual({
      ok: true,
      state: 'xyz',
      codeChallenge: CHALLENGE,
      scopes: ['catalog:read', 'shops:read'],
      resource: BASE,
    });
  });

  it('checks response_type before PKCE, and PKCE before scope', () => {
    const result = checkAuthorizationRequest(buildClient(), buildQuery({ response_type: 'token', code_challenge: undefined, scope: 'nope' }), BASE);

    expect(result).toMatchObject({ ok: false, error: 'unsupported_response_type', state: 'xyz' });
  });

  it('requires an S256 code challenge', () => {
    expect(checkAuthorizationRequest(buildClient(), buildQuery({ code_challenge: undefined }), BASE)).toMatchObject({ error: 'invalid_request' });
    expect(checkAuthorizationRequest(buildClient(), buildQuery({ code_challenge_method: 'plain' }), BASE)).toMatchObject({
      error: 'invalid_request',
      description: 'code_challenge_method must be S256; plain is not accepted.',
    });
    expect(checkAuthorizationRequest(buildClient(), buildQuery({ code_challenge: 'short' }), BASE)).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a scope the client may not ask for', () => {
    expect(checkAuthorizationRequest(buildClient(), buildQuery({ scope: 'requests:write' }), BASE)).toMatchObject({ error: 'invalid_scope' });
  });

  it('refuses a resource this API does not serve', () => {
    expect(checkAuthorizationRequest(buildClient(), buildQuery({ resource: 'https://other.example' }), BASE)).toMatchObject({ error: 'invalid_target' });
  });

  it('refuses a state longer than 2048 characters, last', () => {
    expect(checkAuthorizationRequest(buildClient(), buildQuery({ state: 'x'.repeat(2049) }), BASE)).toMatchObject({ error: 'invalid_request' });
  });
});

describe('redirectWith', () => {
  it('adds the parameters to the redirect URI own query and leaves out absent ones', () => {
    expect(redirectWith('https://host.example/cb?x=1', { code: 'abc', state: undefined })).toBe('https://host.example/cb?x=1&code=abc');
  });
});
