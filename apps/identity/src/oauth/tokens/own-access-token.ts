// Reads an access token presented for revocation: only one this server
// signed (a key of its JWKS, ES256, `at+jwt`, one of its two issuers) counts.
// An expired token still counts, since revoking it still ends its grant's
// refresh tokens.
import { createPublicKey } from 'node:crypto';
import { AccessTokenClaims } from '@msa/contracts';
import { jsonwebtoken } from '@msa/service-kit';
import { issuerFor } from './access-token.js';
import type { TokenKeys } from '../../domain/token-keys.js';

/** The claims of an access token this server issued, or null for anything else. */
export function readOwnAccessToken(keys: TokenKeys, publicBaseUrl: string, token: string): AccessTokenClaims | null {
  const jwt = jsonwebtoken();
  const decoded = jwt.decode(token, { complete: true });
  if (!decoded || typeof decoded.payload === 'string' || decoded.header.typ !== 'at+jwt') return null;
  const jwk = keys.jwks.keys.find((k) => k.kid === decoded.header.kid);
  if (!jwk) return null;
  try {
    const payload = jwt.verify(token, createPublicKey({ key: jwk, format: 'jwk' }), {
      algorithms: ['ES256'],
      issuer: [issuerFor(publicBaseUrl, false), issuerFor(publicBaseUrl, true)],
      ignoreExpiration: true,
    });
    const claims = AccessTokenClaims.safeParse(payload);
    return claims.success ? claims.data : null;
  } catch {
    return null;
  }
}
