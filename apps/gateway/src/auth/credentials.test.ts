import { BOUNDS } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { extractCredential } from './credentials.js';

const key = `msa_test_${'a'.repeat(32)}`;

describe('extractCredential', () => {
  it('reads an API key from Authorization: Bearer', () => {
    expect(extractCredential({ authorization: `Bearer ${key}` })).toEqual({ kind: 'api_key', value: key });
  });

  it('reads an API key from X-API-Key', () => {
    expect(extractCredential({ 'x-api-key': key })).toEqual({ kind: 'api_key', value: key });
  });

  it('recognises a JWT as an access token', () => {
    expect(extractCredential({ authorization: 'Bearer aaa.bbb.ccc' })).toEqual({ kind: 'token', value: 'aaa.bbb.ccc' });
  });

  it('calls other Authorization schemes malformed', () => {
    expect(extractCredential({ authorization: 'Basic dXNlcjpwYXNz' })?.kind).toBe('malformed');
  });

  it('calls a bearer value that is neither key nor token malformed', () => {
    expect(extractCredential({ authorization: 'Bearer hello' })?.kind).toBe('malformed');
  });

  it('returns null without credentials', () => {
    expect(extractCredential({})).toBeNull();
  });

  it('calls an API key longer than the contracts bound malformed, so it is never looked up', () => {
    const long = `msa_live_${'a'.repeat(BOUNDS.apiKeyMaxLength)}`;

    expect(extractCredential({ authorization: `Bearer ${long}` })?.kind).toBe('malformed');
    expect(extractCredential({ 'x-api-key': long })?.kind).toBe('malformed');
  });

  it('accepts an API key of exactly the bound', () => {
    const edge = `msa_test_${'a'.repeat(BOUNDS.apiKeyMaxLength - 9)}`;

    expect(extractCredential({ 'x-api-key': edge })).toEqual({ kind: 'api_key', value: edge });
  });

  it('calls a token longer than the contracts bound malformed', () => {
    const long = `aaa.${'b'.repeat(BOUNDS.accessTokenMaxLength)}.ccc`;

    expect(extractCredential({ authorization: `Bearer ${long}` })?.kind).toBe('malformed');
  });
});
