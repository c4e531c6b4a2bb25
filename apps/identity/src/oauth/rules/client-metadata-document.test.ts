import { describe, expect, it } from 'vitest';
import { cacheSeconds, ClientMetadataError, isMetadataClientId, validateMetadata } from './client-metadata-document.js';

const URL_ID = 'https://host.example/oauth/client.json';

function buildDocument(overrides: Record<string, unknown> = {}) {
  return { client_id: URL_ID, client_name: 'Host', redirect_uris: ['https://host.example/cb'], ...overrides };
}

describe('isMetadataClientId', () => {
  it('takes an https URL with a path', () => {
    expect(isMetadataClientId(URL_ID, false)).toBe(true);
  });

  it('refuses a bare origin, a fragment, user information and http unless loopback http is allowed', () => {
    expect(isMetadataClientId('https://host.example/', false)).toBe(false);
    expect(isMetadataClientId(`${URL_ID}#x`, false)).toBe(false);
    expect(isMetadataClientId('https://u:p@host.example/c.json', false)).toBe(false);
    expect(isMetadataClientId('http://127.0.0.1:3000/c.json', false)).toBe(false);
    expect(isMetadataClientId('http://127.0.0.1:3000/c.json', true)).toBe(true);
  });
});

describe('cacheSeconds', () => {
  it('keeps a document five minutes without Cache-Control, never with no-store, at most a day', () => {
    expect(cacheSeconds(undefined)).toBe(300);
    expect(cacheSeconds('no-store')).toBe(0);
    expect(cacheSeconds('public, max-age=600')).toBe(600);
    expect(cacheSeconds('max-age=9999999')).toBe(86_400);
  });
});

describe('validateMetadata', () => {
  it('returns the client with the document host', () => {
    expect(validateMetadata(URL_ID, buildDocument())).toEqual({
      client_id: URL_ID,
      client_name: 'Host',
      host: 'host.example',
      redirect_uris: ['https://host.example/cb'],
    });
  });

  it('names the client by its host when the document names none', () => {
    expect(validateMetadata(URL_ID, buildDocument({ client_name: undefined })).client_name).toBe('host.example');
  });

  it('refuses a document of another client_id', () => {
    expect(() => validateMetadata(URL_ID, buildDocument({ client_id: 'https://other.example/c.json' }))).toThrow(ClientMetadataError);
  });

  it('refuses a client secret and any authentication method but none', () => {
    expect(() => validateMetadata(URL_ID, buildDocument({ client_secret: 'x' }))).toThrow('must not carry a client secret');
    expect(() => validateMetadata(URL_ID, buildDocument({ token_endpoint_auth_method: 'client_secret_basic' }))).toThrow("'client_secret_basic' is not supported");
  });

  it('refuses a redirect URI that could not be registered', () => {
    expect(() => validateMetadata(URL_ID, buildDocument({ redirect_uris: ['http://host.example/cb'] }))).toThrow(/The redirect URI http:\/\/host.example\/cb http is only allowed/);
  });
});
