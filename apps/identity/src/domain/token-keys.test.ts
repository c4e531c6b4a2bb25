import { createPublicKey } from 'node:crypto';
import { testEcKeyPair } from '@msa/test-kit';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { signAccessToken } from '../oauth/tokens/access-token.js';
import { createTokenKeys } from './token-keys.js';

const BASE = 'https://api.example.test';

function buildKeys(kid = 'k1', previous: { kid: string; publicKeyPem: string }[] = []) {
  return createTokenKeys({ privateKeyPem: testEcKeyPair().privateKeyPem, kid }, previous);
}

const input = {
  clientId: 'msa_client_abc',
  name: 'Agent',
  scopes: ['catalog:read', 'shops:read'] as ('catalog:read' | 'shops:read')[],
  mode: 'live' as const,
  tier: 'free',
  sandbox: false,
  audience: BASE,
};

describe('createTokenKeys', () => {
  it('publishes the signing key as an ES256 P-256 JWK with its kid', () => {
    const keys = buildKeys('2025-01');

    expect(keys.jwks.keys).toEqual([
      { kty: 'EC', crv: 'P-256', x: expect.any(String), y: expect.any(String), kid: '2025-01', alg: 'ES256', use: 'sig' },
    ]);
  });

  it('keeps earlier public keys in the JWKS during a rotation', () => {
    const previous = testEcKeyPair();

    const keys = buildKeys('new', [{ kid: 'old', publicKeyPem: previous.publicKeyPem }]);

    expect(keys.jwks.keys.map((k) => k.kid)).toEqual(['new', 'old']);
  });

  it('refuses a kid published twice', () => {
    expect(() => buildKeys('same', [{ kid: 'same', publicKeyPem: testEcKeyPair().publicKeyPem }])).toThrow(/twice/);
  });
});

describe('signAccessToken', () => {
  it('signs an RFC 9068 at+jwt ES256 token the published JWK verifies, with the expected claims', () => {
    const keys = buildKeys('k1');

    const token = signAccessToken(keys, BASE, input);

    const publicKey = createPublicKey({ key: keys.jwks.keys[0]!, format: 'jwk' });
    const claims = jwt.verify(token.accessToken, publicKey, { algorithms: ['ES256'], issuer: BASE, audience: BASE }) as jwt.JwtPayload;
    expect(jwt.decode(token.accessToken, { complete: true })?.header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' });
    expect(claims).toMatchObject({ sub: 'msa_client_abc', client_id: 'msa_client_abc', scope: 'catalog:read shops:read', name: 'Agent', mode: 'live', tier: 'free' });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.jti).toEqual(expect.any(String));
    expect(token).toMatchObject({ expiresIn: 3600, scope: 'catalog:read shops:read' });
  });

  it('makes a sandbox token with the sandbox issuer when issued on the sandbox', () => {
    const keys = buildKeys();

    const token = signAccessToken(keys, BASE, { ...input, sandbox: true });

    const claims = jwt.decode(token.accessToken) as jwt.JwtPayload;
    expect(claims).toMatchObject({ iss: `${BASE}/sandbox`, aud: BASE, mode: 'sandbox' });
  });

  it('makes the audience the resource the client named', () => {
    const keys = buildKeys();

    const token = signAccessToken(keys, BASE, { ...input, audience: `${BASE}/mcp` });

    expect(jwt.decode(token.accessToken)).toMatchObject({ aud: `${BASE}/mcp`, iss: BASE });
  });

  it('gives every token its own jti', () => {
    const keys = buildKeys();

    const a = jwt.decode(signAccessToken(keys, BASE, input).accessToken) as jwt.JwtPayload;
    const b = jwt.decode(signAccessToken(keys, BASE, input).accessToken) as jwt.JwtPayload;

    expect(a.jti).not.toBe(b.jti);
  });
});
