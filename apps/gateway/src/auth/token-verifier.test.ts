import { createPublicKey } from 'node:crypto';
import { testEcKeyPair } from '@msa/test-kit';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { createTokenVerifier, InvalidTokenError } from './token-verifier.js';

const BASE = 'https://api.example.test';
const pair = testEcKeyPair();
const jwk = { ...createPublicKey(pair.publicKeyPem).export({ format: 'jwk' }), kid: 'k1' };
const verify = createTokenVerifier({ fetchJwks: async () => ({ keys: [jwk] }), issuers: [BASE] });

function buildToken({ typ = 'at+jwt', aud = BASE }: { typ?: string; aud?: string } = {}) {
  const claims = { client_id: 'msa_client_a', scope: 'catalog:read', name: 'Agent', mode: 'live', tier: 'free' };
  return jwt.sign(claims, pair.privateKeyPem, {
    algorithm: 'ES256',
    header: { alg: 'ES256', typ, kid: 'k1' },
    issuer: BASE,
    audience: aud,
    subject: 'msa_client_a',
    expiresIn: 60,
    jwtid: 'j1',
  });
}

describe('token verifier', () => {
  it('accepts an at+jwt token whose audience fits the resource', async () => {
    const principal = await verify(buildToken({ aud: `${BASE}/mcp` }), { audiences: [`${BASE}/mcp`, BASE] });

    expect(principal).toMatchObject({ id: 'msa_client_a', scopes: ['catalog:read'], via: 'oauth' });
  });

  it('accepts the media-type spelling application/at+jwt', async () => {
    await expect(verify(buildToken({ typ: 'application/at+jwt' }), { audiences: [BASE] })).resolves.toMatchObject({ id: 'msa_client_a' });
  });

  it.each(['JWT', 'at+JWT+x', 'secevent+jwt'])('refuses a token of typ %s', async (typ) => {
    await expect(verify(buildToken({ typ }), { audiences: [BASE] })).rejects.toThrow(/typ must be at\+jwt/);
  });

  it('refuses a token for another resource and names the one to ask for', async () => {
    const mcpToken = buildToken({ aud: `${BASE}/mcp` });

    const refusal = verify(mcpToken, { audiences: [BASE] });

    await expect(refusal).rejects.toBeInstanceOf(InvalidTokenError);
    await expect(refusal).rejects.toThrow(`request one with resource=${BASE}`);
  });
});
