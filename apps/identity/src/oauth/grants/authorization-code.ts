// The authorization code grant (RFC 6749 §4.1.3 with PKCE): a code is single
// use, lives at most ten minutes and is bound to the client, the redirect
// URI, the PKCE challenge, the resource, the scope and the issuer it was made
// on; a second use revokes the grant its first use made.
import type { TokenRequest, TokenResponse } from '@msa/contracts';
import type { OAuthStore } from '../store/oauth-store.js';
import type { Grant } from '../store/oauth-records.js';
import { checkCodeRedemption, invalidGrant, publicClientId, requireCodeParameters } from './grant-checks.js';
import { issueGrantTokens, type IssueOptions } from './issue-tokens.js';
import { newRefreshToken } from './refresh-tokens.js';

export interface PublicGrantDeps extends IssueOptions {
  store: Pick<OAuthStore, 'useCode' | 'revokeGrant' | 'createGrant' | 'findGrant' | 'rotateRefresh'>;
}

export function createAuthorizationCodeGrant(deps: PublicGrantDeps) {
  return async function authorizationCode(body: TokenRequest, authorization: string | undefined, sandbox: boolean): Promise<TokenResponse> {
    const clientId = publicClientId(body, authorization);
    const { code, verifier } = requireCodeParameters(body);
    const use = await deps.store.useCode(code);
    if (use.kind === 'unknown') throw invalidGrant('The authorization code is unknown or expired.');
    if (use.kind === 'reused') {
      await deps.store.revokeGrant(use.grantId);
      throw invalidGrant('The authorization code was already used; the tokens it issued are revoked.');
    }
    const audience = checkCodeRedemption(use.record, body, { clientId, verifier, sandbox, publicBaseUrl: deps.publicBaseUrl });
    const { request, approval, grant_id: grantId } = use.record;
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
    const { response, refreshDigest } = issueGrantTokens(deps, grant, grant.scopes, audience, newRefreshToken(grantId));
    await deps.store.createGrant(grant, refreshDigest);
    return response;
  };
}
