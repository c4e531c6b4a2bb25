// The authorization code and refresh token grants for public clients
// (`token_endpoint_auth_method: none`). A code is single use, lives at most
// ten minutes and is bound to the client, the redirect URI, the PKCE
// challenge, the resource, the scope and the issuer it was made on; a second
// use revokes the grant its first use made. Refresh tokens rotate on every
// use, and a used one presented again revokes its whole family, except the
// one rotated last within the reuse grace: hosts that refresh in parallel
// present one token several times at once, and each gets the same successor.
// Revoking a refresh token or an access token of a grant revokes the whole
// grant.
import { LIMITS, type TokenRequest, type TokenResponse } from '@msa/contracts';
import { appError, createSealedText, type AppError } from '@msa/service-kit';
import { randomBase62 } from '../domain/credentials.js';
import { FREE_TIER } from '../domain/create-credentials.js';
import { signAccessToken } from '../domain/access-token.js';
import { audienceFor, sameResource } from '../domain/resource-indicator.js';
import { formatScopes, narrowScopes } from '../domain/scopes.js';
import type { TokenKeys } from '../domain/token-keys.js';
import { readOwnAccessToken } from './own-access-token.js';
import { approvalPrincipal } from './person.js';
import { digest, type Grant, type OAuthStore } from './oauth-store.js';
import { verifierMatches } from './pkce.js';

const REFRESH_PREFIX = 'msa_rt_';
const REFRESH_TOKEN = /^msa_rt_(g[0-9A-Za-z]{24})_([0-9A-Za-z]{40})$/;
const SUCCESSOR_SEAL_PURPOSE = 'refresh-token-successor';

/** Okta's default grace for a rotated refresh token used again. */
export const DEFAULT_REFRESH_REUSE_GRACE_SECONDS = 30;

/**
 * The successor of a refresh token, sealed under a key derived from that
 * token: Redis holds only the token's digest, so a copy of Redis opens
 * nothing, and only a caller presenting the token gets its successor.
 */
function successorSeal(presentedToken: string) {
  return createSealedText(presentedToken, SUCCESSOR_SEAL_PURPOSE);
}

export interface TokenGrantDeps {
  store: OAuthStore;
  tokenKeys: TokenKeys;
  publicBaseUrl: string;
  /** REFRESH_REUSE_GRACE_SECONDS: how long the refresh token rotated last answers again with its successor (0: never). */
  refreshReuseGraceSeconds?: number;
}

function invalidGrant(message: string): AppError {
  return appError('invalid_grant', message);
}

function notTheTokensClient(): AppError {
  return appError('invalid_request', 'Only the client the token was issued to may revoke it.', {
    fields: [{ field: 'client_id', message: 'must be the client_id the token was issued to' }],
  });
}

/** The grant a refresh token names, or null for anything that is not one of ours. */
export function grantIdOf(refreshToken: string): string | null {
  return REFRESH_TOKEN.exec(refreshToken)?.[1] ?? null;
}

/** A public client names itself in the body and sends no secret. */
function publicClientId(body: TokenRequest, authorization: string | undefined): string {
  if (authorization || body.client_secret) {
    throw appError('invalid_client', 'This grant is for public clients: send client_id in the body and no client secret.');
  }
  if (!body.client_id) throw appError('invalid_client', 'client_id is missing.');
  return body.client_id;
}

export function createTokenGrants(deps: TokenGrantDeps) {
  const graceMs = (deps.refreshReuseGraceSeconds ?? DEFAULT_REFRESH_REUSE_GRACE_SECONDS) * 1000;
  const newRefreshToken = (grant: Grant) => `${REFRESH_PREFIX}${grant.grant_id}_${randomBase62(40)}`;

  function issue(grant: Grant, scopes: Grant['scopes'], audience: string, refreshToken = newRefreshToken(grant)): { response: TokenResponse; refreshDigest: string } {
    const who = approvalPrincipal(grant.approval, grant.sandbox);
    const token = signAccessToken(deps.tokenKeys, deps.publicBaseUrl, {
      clientId: grant.client_id,
      name: who.name,
      scopes,
      mode: grant.approval.mode,
      tier: FREE_TIER,
      sandbox: grant.sandbox,
      audience,
      person: { id: who.id, email: who.email, clientName: grant.client_name, grantId: grant.grant_id },
    });
    return {
      response: { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn, scope: token.scope, refresh_token: refreshToken },
      refreshDigest: digest(refreshToken),
    };
  }

  /**
   * A `resource` of the token request must be the one the code or grant was
   * made for; a trailing slash may differ. Returns the token's audience: the
   * resource as this request spelled it, else as the authorization request did.
   */
  function checkResource(bound: string, requested: TokenRequest['resource']): string {
    if (requested === undefined || requested === '') return bound;
    const target = audienceFor(deps.publicBaseUrl, requested);
    if (!target.ok) throw appError('invalid_target', `The requested resource is not allowed: ${target.message}`);
    if (!sameResource(target.audience, bound)) throw appError('invalid_target', `This grant is for the resource ${bound}.`);
    return target.audience;
  }

  return {
    async authorizationCode(body: TokenRequest, authorization: string | undefined, sandbox: boolean): Promise<TokenResponse> {
      const clientId = publicClientId(body, authorization);
      if (!body.code) throw appError('invalid_request', 'code is missing.', { fields: [{ field: 'code', message: 'is required' }] });
      if (!body.code_verifier) {
        throw appError('invalid_request', 'code_verifier is missing: PKCE is required.', { fields: [{ field: 'code_verifier', message: 'is required' }] });
      }
      const use = await deps.store.useCode(body.code);
      if (use.kind === 'unknown') throw invalidGrant('The authorization code is unknown or expired.');
      if (use.kind === 'reused') {
        await deps.store.revokeGrant(use.grantId);
        throw invalidGrant('The authorization code was already used; the tokens it issued are revoked.');
      }
      const { request, approval, grant_id: grantId } = use.record;
      if (request.client_id !== clientId) throw invalidGrant('The authorization code was issued to another client.');
      if (request.sandbox !== sandbox) throw invalidGrant('The authorization code was issued by the other environment\'s issuer.');
      if (body.redirect_uri !== undefined ? body.redirect_uri !== request.redirect_uri : request.redirect_uri_sent) {
        throw invalidGrant('redirect_uri differs from the one of the authorization request.');
      }
      if (!verifierMatches(body.code_verifier, request.code_challenge)) throw invalidGrant('The code_verifier does not match the code_challenge.');
      const audience = checkResource(request.resource, body.resource);

      const grant: Grant = {
        grant_id: grantId,
        client_id: request.client_id,
        client_name: request.client_name,
        scopes: request.scopes,
        resource: request.resource,
        sandbox: request.sandbox,
        approval,
        created_at: new Date().toISOString(),
      };
      const { response, refreshDigest } = issue(grant, grant.scopes, audience);
      await deps.store.createGrant(grant, refreshDigest);
      return response;
    },

    async refreshToken(body: TokenRequest, authorization: string | undefined, sandbox: boolean): Promise<TokenResponse> {
      const clientId = publicClientId(body, authorization);
      if (!body.refresh_token) throw appError('invalid_request', 'refresh_token is missing.', { fields: [{ field: 'refresh_token', message: 'is required' }] });
      const grantId = grantIdOf(body.refresh_token);
      const found = grantId ? await deps.store.findGrant(grantId) : null;
      if (!found) throw invalidGrant('The refresh token is unknown or expired.');
      const { grant } = found;
      if (grant.client_id !== clientId) throw invalidGrant('The refresh token was issued to another client.');
      if (grant.sandbox !== sandbox) throw invalidGrant('The refresh token was issued by the other environment\'s issuer.');
      const scopes = narrowScopes(grant.scopes, body.scope);
      if (!scopes.ok) throw appError('invalid_scope', `scope must be a subset of: ${formatScopes(grant.scopes)}.`);
      const audience = checkResource(grant.resource, body.resource);

      const seal = successorSeal(body.refresh_token);
      const successor = newRefreshToken(grant);
      const outcome = await deps.store.rotateRefresh(grant.grant_id, digest(body.refresh_token), digest(successor), seal.seal(successor), graceMs);
      if (outcome.kind === 'rotated') return issue(grant, scopes.scopes, audience, successor).response;
      if (outcome.kind === 'grace') {
        // A parallel request rotated this token a moment ago: the same successor, a new access token of the grant.
        const earlier = seal.open(outcome.sealedSuccessor);
        if (earlier) return issue(grant, scopes.scopes, audience, earlier).response;
      }
      if (outcome.kind === 'reused') throw invalidGrant('The refresh token was already used; every token of its grant is revoked.');
      throw invalidGrant('The refresh token is revoked or unknown.');
    },

    /**
     * RFC 7009: revokes the grant of a refresh token, or of an access token of
     * the authorization code grant, that `clientId` holds. A token this
     * server did not issue is ignored (200); an access token without a grant
     * (client credentials) cannot be revoked and says so, as does a token of
     * another client: neither may end in a 200 that leaves the token working.
     */
    async revoke(token: string, clientId: string | undefined): Promise<void> {
      const grantId = grantIdOf(token);
      if (grantId) {
        const found = await deps.store.findGrant(grantId);
        if (!found) return;
        if (found.grant.client_id !== clientId) throw notTheTokensClient();
        // Only the token's own holder may revoke: the digest must be the current refresh token or a used one.
        if (await deps.store.holdsRefresh(grantId, digest(token))) await deps.store.revokeGrant(grantId);
        return;
      }
      const claims = readOwnAccessToken(deps.tokenKeys, deps.publicBaseUrl, token);
      if (!claims) return;
      if (!claims.grant) {
        throw appError('unsupported_token_type', 'This access token comes from the client credentials grant, which has nothing to revoke; it expires within the hour.', {
          hint: 'To stop a client-credentials client, stop using its secret; access tokens of the authorization code grant and refresh tokens can be revoked.',
        });
      }
      if (claims.client_id !== clientId) throw notTheTokensClient();
      await deps.store.revokeGrant(claims.grant);
    },
  };
}
export type TokenGrants = ReturnType<typeof createTokenGrants>;

export const AUTHORIZATION_CODE_LIFETIME_SECONDS = LIMITS.authorizationCodeLifetimeSeconds;
