import { describe, expect, it } from 'vitest';
import { isS256Challenge, verifierMatches } from './pkce.js';

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('isS256Challenge', () => {
  it('accepts a base64url SHA-256 of 43 characters', () => {
    expect(isS256Challenge(CHALLENGE)).toBe(true);
  });

  it('refuses a verifier sent as challenge, or padding', () => {
    expect(isS256Challenge(`${CHALLENGE}=`)).toBe(false);
    expect(isS256Challenge('a'.repeat(64))).toBe(false);
  });
});

describe('verifierMatches', () => {
  it('accepts the verifier of the RFC example', () => {
    expect(verifierMatches(VERIFIER, CHALLENGE)).toBe(true);
  });

  it('refuses another verifier', () => {
    expect(verifierMatches(`${VERIFIER.slice(0, -1)}Y`, CHALLENGE)).toBe(false);
  });

  it('refuses a verifier shorter than 43 characters or with characters outside the unreserved set', () => {
    expect(verifierMatches('short', CHALLENGE)).toBe(false);
    expect(verifierMatches(`${VERIFIER.slice(0, -1)}!`, CHALLENGE)).toBe(false);
  });
});
