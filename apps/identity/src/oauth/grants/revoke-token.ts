// RFC 7009 revocation: a refresh token, or an access token of the
// authorization code grant, revokes its whole grant.
import { appError, type AppError } from '@msa/service-kit';
import type { TokenKeys } from '../../domain/token-keys.js';
import { digest } from '../rules/digest.js';
import type { OAuthStore } from '../store/oauth-store.js';
import { readOwnAccessToken } from '../tokens/own-access-token.js';
import { grantIdOf } from './refresh-tokens.js';

export interface RevokeDeps {
  store: Pick<OAuthStore, 'findGrant' | 'holdsRefresh' | 'revokeGrant'>;
  tokenKeys: TokenKeys;
  publicBaseUrl: string;
}

function notTheTokensClient(): AppError {
  return appError('invalid_request', 'Only the client the token was issued to may revoke it.', {
    fields: [{ field: 'client_id', message: 'must be the client_id the token was issued to' }],
  });
}

export function createTokenRevocation(deps: RevokeDeps) {
  /**
   * Revokes the grant of a refresh token, or of an access token of the
   * authorization code grant, that `clientId` holds. A token this server did
   * not issue is ignored (200); an access token without a grant (client
   * credentials) cannot be revoked and says so, as does a token of another
   * client: neither may end in a 200 that leaves the token working.
   */
  return async function revoke(token: string, clientId: string | undefined): Promise<void> {
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
  };
}
