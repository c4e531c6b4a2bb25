// What a grant of the authorization code flow hands out: an access token
// naming the person (or the sandbox principal) and a refresh token.
import type { Scope, TokenResponse } from '@msa/contracts';
import { FREE_TIER } from '../../domain/credentials.js';
import type { TokenKeys } from '../../domain/token-keys.js';
import { approvalPrincipal } from '../rules/person.js';
import { digest } from '../rules/digest.js';
import type { Grant } from '../store/oauth-records.js';
import { signAccessToken } from '../tokens/access-token.js';

export interface IssueOptions {
  tokenKeys: TokenKeys;
  publicBaseUrl: string;
}

export function issueGrantTokens(opts: IssueOptions, grant: Grant, scopes: Scope[], audience: string, refreshToken: string): { response: TokenResponse; refreshDigest: string } {
  const who = approvalPrincipal(grant.approval, grant.sandbox);
  const token = signAccessToken(opts.tokenKeys, opts.publicBaseUrl, {
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
