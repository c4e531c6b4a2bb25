import { createPublicKey, type KeyObject } from 'node:crypto';
import { AccessTokenClaims, Scope, type Principal } from '@msa/contracts';
import { jsonwebtoken } from '@msa/service-kit';

export interface TokenVerifierOptions {
  /** Fetches identity's JWKS (`{ keys: [...] }`). */
  fetchJwks: () => Promise<{ keys: Array<Record<string, unknown>> }>;
  issuers: [string, ...string[]];
  /** At most one JWKS refresh in this interval, however many unknown `kid`s arrive. */
  minRefreshMs?: number;
  /** Whether the grant of an authorization-code token is still active (a reused code or refresh token revokes it). */
  grantActive?: (grant: string) => Promise<boolean>;
}

export class InvalidTokenError extends Error {
  override name = 'InvalidTokenError';
}

export interface VerifyOptions {
  /** The audiences that fit the resource the request addresses (see domain/protected-resource.ts). */
  audiences: [string, ...string[]];
  /** Never fetch the JWKS for an unknown `kid` (a caller past its failed-authentication budget). */
  knownKeysOnly?: boolean;
}

/** RFC 9068 §4: the media type `application/at+jwt`, which a `typ` may also spell without `application/`. */
function isAccessTokenType(typ: unknown): boolean {
  return typeof typ === 'string' && ['at+jwt', 'application/at+jwt'].includes(typ.toLowerCase());
}

/**
 * Verifies RFC 9068 access tokens locally: `typ: at+jwt` (so no other JWT
 * signed with the same key passes as an access token), ES256 only (so `none`
 * and an HS256 token signed with the public key are refused), against
 * identity's JWKS, cached and refreshed when a token names an unknown `kid`.
 */
export function createTokenVerifier({ fetchJwks, issuers, minRefreshMs = 10_000, grantActive }: TokenVerifierOptions) {
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

  return async function verify(token: string, { audiences, knownKeysOnly = false }: VerifyOptions): Promise<Principal> {
    // Loaded on the first access token: most callers send API keys.
    const jwt = jsonwebtoken();
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.header.kid !== 'string') throw new InvalidTokenError('The token is malformed.');
    if (decoded.header.alg !== 'ES256') throw new InvalidTokenError('The token must be signed with ES256.');
    if (!isAccessTokenType(decoded.header.typ)) throw new InvalidTokenError('The token is not an access token (typ must be at+jwt).');
    const key = await keyFor(decoded.header.kid, knownKeysOnly);
    let payload: unknown;
    try {
      payload = jwt.verify(token, key, { algorithms: ['ES256'], issuer: issuers, audience: audiences });
    } catch (err) {
      if (err instanceof jwt.TokenExpiredError) throw new InvalidTokenError('The access token has expired; request a new one.');
      // Checked last by jsonwebtoken, so the signature is already known to be good here.
      if (err instanceof jwt.JsonWebTokenError && err.message.startsWith('jwt audience invalid')) {
        throw new InvalidTokenError(
          `The access token is for another resource; request one with resource=${audiences[0]} (or without resource).`,
        );
      }
      throw new InvalidTokenError('The access token is invalid.');
    }
    const claims = AccessTokenClaims.safeParse(payload);
    if (!claims.success) throw new InvalidTokenError('The access token lacks required claims.');
    const scopes = claims.data.scope
      .split(' ')
      .filter(Boolean)
      .map((s) => Scope.safeParse(s))
      .flatMap((r) => (r.success ? [r.data] : []));
    const { grant, email, client_name: clientName } = claims.data;
    if (grant !== undefined && grantActive && !(await grantActive(grant))) {
      throw new InvalidTokenError('The access token was revoked; authorize again.');
    }
    return {
      id: claims.data.sub,
      name: claims.data.name,
      scopes,
      mode: claims.data.mode,
      tier: claims.data.tier,
      via: 'oauth',
      // A person who confirmed the address on the consent page, through this client.
      ...(email !== undefined ? { confirmed_email: email, client: { id: claims.data.client_id, name: clientName ?? claims.data.client_id } } : {}),
    };
  };
}
export type TokenVerifier = ReturnType<typeof createTokenVerifier>;
