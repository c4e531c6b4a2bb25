// The authorization code and refresh token grants for public clients
// (`token_endpoint_auth_method: none`). A code is single use, lives at most
// ten minutes and is bound to the client, the redirect URI, the PKCE
// challenge, the resource, the scope and the issuer it was made on; a second
// use revokes the grant its first use made. Refresh tokens rotate on every
// use, and a used one presented again revokes its whole family. Revoking a
// refresh token or an access token of a grant revokes the whole grant.
import { LIMITS, type TokenRequest, type TokenResponse } from '@msa/contracts';
import { appError, type AppError } from '@msa/service-kit';
import { randomBase62 } from '../domain/credentials.js';
import { FREE_TIER } from '../domain/create-credentials.js';
import { signAccessToken } from '../domain/access-token.js';
import { audienceFor } from '../domain/resource-indicator.js';
import { formatScopes, narrowScopes } from '../domain/scopes.js';
import type { TokenKeys } from '../domain/token-keys.js';
import { readOwnAccessToken } from './own-access-token.js';
import { personId } from './person.js';
import { digest, type Grant, type OAuthStore } from './oauth-store.js';
import { verifierMatches } from './pkce.js';

const REFRESH_PREFIX = 'msa_rt_';
const REFRESH_TOKEN = /^msa_rt_(g[0-9A-Za-z]{24})_([0-9A-Za-z]{40})$/;

export interface TokenGrantDeps {
  store: OAuthStore;
  tokenKeys: TokenKeys;
  publicBaseUrl: string;
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
  function issue(grant: Grant, scopes: Grant['scopes'], audience: string): { response: TokenResponse; refreshDigest: string } {
    const refreshToken = `${REFRESH_PREFIX}${grant.grant_id}_${randomBase62(40)}`;
    const token = signAccessToken(deps.tokenKeys, deps.publicBaseUrl, {
      clientId: grant.client_id,
      name: grant.approval.email,
      scopes,
      mode: grant.approval.mode,
      tier: FREE_TIER,
      sandbox: grant.sandbox,
      audience,
      person: { id: personId(grant.approval.email, grant.sandbox ? 'sandbox' : grant.approval.mode), email: grant.approval.email, clientName: grant.client_name, grantId: grant.grant_id },
    });
    return {
      response: { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn, scope: token.scope, refresh_token: refreshToken },
      refreshDigest: digest(refreshToken),
    };
  }

  /** A `resource` of the token request must be the one the code or grant was made for. */
  function checkResource(bound: string, requested: TokenRequest['resource']): void {
    if (requested === undefined || requested === '') return;
    const target = audienceFor(deps.publicBaseUrl, requested);
    if (!target.ok) throw appError('invalid_target', `The requested resource is not allowed: ${target.message}`);
    if (target.audience !== bound) throw appError('invalid_target', `This grant is for the resource ${bound}.`);
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
      checkResource(request.resource, body.resource);

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
      const { response, refreshDigest } = issue(grant, grant.scopes, grant.resource);
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
      checkResource(grant.resource, body.resource);

      const { response, refreshDigest } = issue(grant, scopes.scopes, grant.resource);
      const outcome = await deps.store.rotateRefresh(grant.grant_id, digest(body.refresh_token), refreshDigest);
      if (outcome === 'reused') throw invalidGrant('The refresh token was already used; every token of its grant is revoked.');
      if (outcome !== 'rotated') throw invalidGrant('The refresh token is revoked or unknown.');
      return response;
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
        const outcome = await deps.store.rotateRefresh(grantId, digest(token), digest(token));
        if (outcome === 'rotated' || outcome === 'reused') await deps.store.revokeGrant(grantId);
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
