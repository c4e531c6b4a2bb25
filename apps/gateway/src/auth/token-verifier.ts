import { createPublicKey, type KeyObject } from 'node:crypto';
import { AccessTokenClaims, Scope, type Principal } from '@msa/contracts';
import jwt from 'jsonwebtoken';

export interface TokenVerifierOptions {
  /** Fetches identity's JWKS (`{ keys: [...] }`). */
  fetchJwks: () => Promise<{ keys: Array<Record<string, unknown>> }>;
  issuers: [string, ...string[]];
  audience: string;
  /** At most one JWKS refresh in this interval, however many unknown `kid`s arrive. */
  minRefreshMs?: number;
}

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

/**
 * Verifies access tokens locally: ES256 only (so `none` and an HS256 token
 * signed with the public key are refused), against identity's JWKS, cached
 * and refreshed when a token names an unknown `kid`.
 */
export function createTokenVerifier({ fetchJwks, issuers, audience, minRefreshMs = 10_000 }: TokenVerifierOptions) {
  let keys = new Map<string, KeyObject>();
  let lastRefresh = 0;
  let refreshing: Promise<void> | null = null;

  async function refresh(): Promise<void> {
    refreshing ??= (async () => {
      try {
        const jwks = await fetchJwks();
        const next = new Map<string, KeyObject>();
        for (const jwk of jwks.keys) {
          if (typeof jwk.kid !== 'string' || jwk.kty !== 'EC') continue;
          next.set(jwk.kid, createPublicKey({ key: jwk as never, format: 'jwk' }));
        }
        keys = next;
        lastRefresh = Date.now();
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  async function keyFor(kid: string, knownKeysOnly: boolean): Promise<KeyObject> {
    let key = keys.get(kid);
    if (!key && !knownKeysOnly && Date.now() - lastRefresh >= minRefreshMs) {
      await refresh();
      key = keys.get(kid);
    }
    if (!key) throw new InvalidTokenError('The token was signed with an unknown key.');
    return key;
  }

  /** `knownKeysOnly`: never fetch the JWKS for an unknown `kid` (a caller past its failed-authentication budget). */
  return async function verify(token: string, { knownKeysOnly = false }: { knownKeysOnly?: boolean } = {}): Promise<Principal> {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.header.kid !== 'string') throw new InvalidTokenError('The token is malformed.');
    if (decoded.header.alg !== 'ES256') throw new InvalidTokenError('The token must be signed with ES256.');
    const key = await keyFor(decoded.header.kid, knownKeysOnly);
    let payload: unknown;
    try {
      payload = jwt.verify(token, key, { algorithms: ['ES256'], issuer: issuers, audience });
    } catch (err) {
      const expired = err instanceof jwt.TokenExpiredError;
      throw new InvalidTokenError(expired ? 'The access token has expired; request a new one.' : 'The access token is invalid.');
    }
    const claims = AccessTokenClaims.safeParse(payload);
    if (!claims.success) throw new InvalidTokenError('The access token lacks required claims.');
    const scopes = claims.data.scope
      .split(' ')
      .filter(Boolean)
      .map((s) => Scope.safeParse(s))
      .flatMap((r) => (r.success ? [r.data] : []));
    return {
      id: claims.data.sub,
      name: claims.data.name,
      scopes,
      mode: claims.data.mode,
      tier: claims.data.tier,
      via: 'oauth',
    };
  };
}
export type TokenVerifier = ReturnType<typeof createTokenVerifier>;
