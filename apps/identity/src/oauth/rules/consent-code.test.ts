import { describe, expect, it } from 'vitest';
import { consentCodeDigest, consentCodeMatches, newConsentCode } from './consent-code.js';

describe('newConsentCode', () => {
  it('is six digits', () => {
    expect(newConsentCode()).toMatch(/^\d{6}$/);
  });
});

describe('consentCodeMatches', () => {
  const stored = consentCodeDigest('interaction1', '012345');

  it('accepts the code of its interaction, spaces around it forgiven', () => {
    expect(consentCodeMatches('interaction1', ' 012345 ', stored)).toBe(true);
  });

  it('refuses the same code on another interaction', () => {
    expect(consentCodeMatches('interaction2', '012345', stored)).toBe(false);
  });

  it('refuses a wrong, missing or malformed code', () => {
    expect(consentCodeMatches('interaction1', '012346', stored)).toBe(false);
    expect(consentCodeMatches('interaction1', undefined, stored)).toBe(false);
    expect(consentCodeMatches('interaction1', '12345a', stored)).toBe(false);
  });
});
