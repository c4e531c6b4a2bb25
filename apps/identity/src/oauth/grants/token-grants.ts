// The three grants of the token endpoint, and revocation, in one place:
// `authorization_code` and `refresh_token` for public clients
// (`token_endpoint_auth_method: none`), `client_credentials` for the
// credentials of POST /v1/keys.
import type { TokenKeys } from '../../domain/token-keys.js';
import type { OAuthStore } from '../store/oauth-store.js';
import { createAuthorizationCodeGrant } from './authorization-code.js';
import { createClientCredentialsGrant, type ClientCredentialsDeps } from './client-credentials.js';
import { createRefreshTokenGrant } from './refresh-token.js';
import { createTokenRevocation } from './revoke-token.js';

export { DEFAULT_REFRESH_REUSE_GRACE_SECONDS } from './refresh-token.js';

export interface TokenGrantDeps {
  store: OAuthStore;
  tokenKeys: TokenKeys;
  publicBaseUrl: string;
  /** REFRESH_REUSE_GRACE_SECONDS: how long the refresh token rotated last answers again with its successor (0: never). */
  refreshReuseGraceSeconds?: number | undefined;
  /** The stored credentials the client credentials grant authenticates against. */
  findClient: ClientCredentialsDeps['findClient'];
  /** Wrong client secrets per client_id at /oauth/token, with exponential back-off. */
  clientFailures: ClientCredentialsDeps['failures'];
}

export function createTokenGrants(deps: TokenGrantDeps) {
  return {
    authorizationCode: createAuthorizationCodeGrant(deps),
    refreshToken: createRefreshTokenGrant(deps),
    clientCredentials: createClientCredentialsGrant({ ...deps, failures: deps.clientFailures }),
    revoke: createTokenRevocation(deps),
  };
}
export type TokenGrants = ReturnType<typeof createTokenGrants>;
