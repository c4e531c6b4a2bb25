import { loadConfig } from '@msa/service-kit';
import { testEcKeyPair } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';
import { IdentityEnv } from './config.js';

const SECRET = 'x'.repeat(32);

describe('IdentityEnv', () => {
  it('accepts a PEM written on one line with literal \\n sequences', () => {
    const { privateKeyPem } = testEcKeyPair();
    const oneLine = privateKeyPem.trim().replace(/\n/g, '\\n');

    const config = loadConfig(IdentityEnv, { INTERNAL_AUTH_SECRET: SECRET, TOKEN_SIGNING_KEY: oneLine, TOKEN_SIGNING_KID: 'k1' });

    expect(config.TOKEN_SIGNING_KEY).toBe(privateKeyPem.trim());
    expect(config.IDENTITY_PORT).toBe(8084);
    expect(config.TOKEN_VERIFY_KEYS).toEqual([]);
  });

  it('waits 2 s for a client metadata document and verifies no client unless told', () => {
    const base = { INTERNAL_AUTH_SECRET: SECRET, TOKEN_SIGNING_KEY: testEcKeyPair().privateKeyPem, TOKEN_SIGNING_KID: 'k1' };

    const defaults = loadConfig(IdentityEnv, base);
    const listed = loadConfig(IdentityEnv, { ...base, OAUTH_VERIFIED_CLIENT_HOSTS: ' Claude.ai, ,vscode.dev ' });

    expect(defaults).toMatchObject({
      CLIENT_METADATA_FETCH_TIMEOUT_MS: 2_000,
      CLIENT_METADATA_FETCHES_IN_FLIGHT: 32,
      CLIENT_METADATA_URLS_PER_ADDRESS_PER_HOUR: 10,
      CLIENT_METADATA_URLS_PER_HOST_PER_HOUR: 60,
      CLIENT_METADATA_FAILURE_CACHE_SECONDS: 300,
      OAUTH_VERIFIED_CLIENT_HOSTS: [],
    });
    expect(listed.OAUTH_VERIFIED_CLIENT_HOSTS).toEqual(['claude.ai', 'vscode.dev']);
  });

  it('counts 10 new people per client address, 10 codes and 15 wrong codes per mailbox a day unless told otherwise', () => {
    const base = { INTERNAL_AUTH_SECRET: SECRET, TOKEN_SIGNING_KEY: testEcKeyPair().privateKeyPem, TOKEN_SIGNING_KID: 'k1' };

    const defaults = loadConfig(IdentityEnv, base);
    const tuned = loadConfig(IdentityEnv, { ...base, CONSENT_PRINCIPALS_PER_ADDRESS_PER_DAY: '3', CONSENT_CODES_PER_ADDRESS_PER_DAY: '4', CONSENT_WRONG_CODES_PER_ADDRESS_PER_DAY: '5' });

    expect(defaults).toMatchObject({ CONSENT_PRINCIPALS_PER_ADDRESS_PER_DAY: 10, CONSENT_CODES_PER_ADDRESS_PER_DAY: 10, CONSENT_WRONG_CODES_PER_ADDRESS_PER_DAY: 15 });
    expect(tuned).toMatchObject({ CONSENT_PRINCIPALS_PER_ADDRESS_PER_DAY: 3, CONSENT_CODES_PER_ADDRESS_PER_DAY: 4, CONSENT_WRONG_CODES_PER_ADDRESS_PER_DAY: 5 });
    expect(() => loadConfig(IdentityEnv, { ...base, CONSENT_CODES_PER_ADDRESS_PER_DAY: '0' })).toThrow(/CONSENT_CODES_PER_ADDRESS_PER_DAY/);
  });

  it('names a missing signing key and kid', () => {
    expect(() => loadConfig(IdentityEnv, { INTERNAL_AUTH_SECRET: SECRET })).toThrow(/TOKEN_SIGNING_KEY[\s\S]*TOKEN_SIGNING_KID/);
  });

  it('refuses a key that is not EC P-256', () => {
    expect(() =>
      loadConfig(IdentityEnv, { INTERNAL_AUTH_SECRET: SECRET, TOKEN_SIGNING_KEY: 'not a pem', TOKEN_SIGNING_KID: 'k1' }),
    ).toThrow(/TOKEN_SIGNING_KEY: must be an EC P-256 private key/);
  });

  it('parses earlier verification keys from JSON and refuses malformed JSON', () => {
    const base = { INTERNAL_AUTH_SECRET: SECRET, TOKEN_SIGNING_KEY: testEcKeyPair().privateKeyPem, TOKEN_SIGNING_KID: 'k2' };
    const old = testEcKeyPair().publicKeyPem;

    const config = loadConfig(IdentityEnv, { ...base, TOKEN_VERIFY_KEYS: JSON.stringify([{ kid: 'k1', publicKeyPem: old }]) });

    expect(config.TOKEN_VERIFY_KEYS).toEqual([{ kid: 'k1', publicKeyPem: old.trim() }]);
    expect(() => loadConfig(IdentityEnv, { ...base, TOKEN_VERIFY_KEYS: '[{' })).toThrow(/TOKEN_VERIFY_KEYS/);
  });
});
