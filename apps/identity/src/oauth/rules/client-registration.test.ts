import { describe, expect, it } from 'vitest';
import { isPublicClientRegistration, publicClientProblems, registrationScopes } from './client-registration.js';

describe('isPublicClientRegistration', () => {
  it('takes redirect URIs, auth method none or the authorization code grant as a public client', () => {
    expect(isPublicClientRegistration({ redirect_uris: ['https://host.example/cb'] })).toBe(true);
    expect(isPublicClientRegistration({ token_endpoint_auth_method: 'none' })).toBe(true);
    expect(isPublicClientRegistration({ grant_types: ['authorization_code'] })).toBe(true);
  });

  it('takes a request for client credentials, or no body, as credentials', () => {
    expect(isPublicClientRegistration({ grant_types: ['client_credentials'], redirect_uris: [] })).toBe(false);
    expect(isPublicClientRegistration({ client_name: 'x', contacts: ['a@example.org'] })).toBe(false);
    expect(isPublicClientRegistration(null)).toBe(false);
  });
});

describe('registrationScopes', () => {
  it('gives every scope when none is asked for', () => {
    expect(registrationScopes(undefined)).toMatchObject({ ok: true });
  });

  it('names the unknown scopes', () => {
    expect(registrationScopes('catalog:read nope')).toEqual({ ok: false, problem: { field: 'scope', message: "unknown scope 'nope'" } });
  });
});

describe('publicClientProblems', () => {
  it('names each bad redirect URI by its index, and the scope', () => {
    const { problems } = publicClientProblems(['https://host.example/cb', 'http://host.example/cb'], 'nope');

    expect(problems).toEqual([
      { field: 'redirect_uris.1', message: 'http is only allowed for loopback addresses (127.0.0.1, [::1], localhost)' },
      { field: 'scope', message: "unknown scope 'nope'" },
    ]);
  });

  it('has no problem with good metadata', () => {
    expect(publicClientProblems(['https://host.example/cb'], 'catalog:read')).toEqual({ scopes: ['catalog:read'], problems: [] });
  });
});
