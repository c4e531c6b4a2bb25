import { describe, expect, it } from 'vitest';
import {
  BASE62,
  generateCredentials,
  hashSecret,
  looksLikeApiKey,
  looksLikeClientId,
  matchesHash,
  randomBase62,
} from './credentials.js';

describe('generateCredentials', () => {
  it('makes a sandbox key msa_test_ followed by 40 base62 characters', () => {
    const { apiKey } = generateCredentials('sandbox');

    expect(apiKey).toMatch(/^msa_test_[0-9A-Za-z]{40}$/);
  });

  it('makes a live key msa_live_ followed by 40 base62 characters', () => {
    const { apiKey } = generateCredentials('live');

    expect(apiKey).toMatch(/^msa_live_[0-9A-Za-z]{40}$/);
  });

  it('makes a client id msa_client_… and a secret msa_secret_… with at least 32 random characters', () => {
    const { clientId, clientSecret } = generateCredentials('sandbox');

    expect(clientId).toMatch(/^msa_client_[0-9A-Za-z]{24}$/);
    expect(clientSecret).toMatch(/^msa_secret_[0-9A-Za-z]{40}$/);
  });

  it('never repeats a value', () => {
    const keys = new Set(Array.from({ length: 500 }, () => generateCredentials('sandbox').apiKey));

    expect(keys.size).toBe(500);
  });

  it('produces shapes the format checks accept', () => {
    const live = generateCredentials('live');

    expect(looksLikeApiKey(live.apiKey)).toBe(true);
    expect(looksLikeClientId(live.clientId)).toBe(true);
    expect(looksLikeApiKey(live.clientSecret)).toBe(false);
    expect(looksLikeApiKey('msa_test_short')).toBe(false);
  });
});

describe('randomBase62', () => {
  it('draws every one of the 62 characters and nothing else', () => {
    const sample = randomBase62(20_000);

    expect(new Set(sample).size).toBe(62);
    expect([...sample].every((c) => BASE62.includes(c))).toBe(true);
  });

  it('spreads draws evenly, as a modulo-biased draw would not', () => {
    const sample = randomBase62(62_000);
    const counts = new Map<string, number>();
    for (const c of sample) counts.set(c, (counts.get(c) ?? 0) + 1);

    // Expected 1000 each; byte % 62 would favour the first 8 characters by about 25 %.
    const firstEight = [...BASE62.slice(0, 8)].reduce((n, c) => n + (counts.get(c) ?? 0), 0) / 8;
    const rest = [...BASE62.slice(8)].reduce((n, c) => n + (counts.get(c) ?? 0), 0) / 54;
    expect(firstEight / rest).toBeLessThan(1.12);
  });
});

describe('matchesHash', () => {
  it('accepts the value whose hash is stored and refuses any other', () => {
    const stored = hashSecret('msa_secret_abc');

    expect(matchesHash('msa_secret_abc', stored)).toBe(true);
    expect(matchesHash('msa_secret_abd', stored)).toBe(false);
    expect(matchesHash('msa_secret_abc', 'not-a-hash')).toBe(false);
  });

  it('stores 64 hex digits, never the value itself', () => {
    expect(hashSecret('msa_test_x')).toMatch(/^[0-9a-f]{64}$/);
  });
});
