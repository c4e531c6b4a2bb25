// The refresh token grant: refresh tokens rotate on every use, and a used
// one presented again revokes its whole family, except the one rotated last
// within the reuse grace: hosts that refresh in parallel present one token
// several times at once, and each gets the same successor.
import type { TokenRequest, TokenResponse } from '@msa/contracts';
import { digest } from '../rules/digest.js';
import type { PublicGrantDeps } from './authorization-code.js';
import { checkRefresh, invalidGrant, publicClientId } from './grant-checks.js';
import { issueGrantTokens } from './issue-tokens.js';
import { grantIdOf, newRefreshToken, successorSeal } from './refresh-tokens.js';
import { appError } from '@msa/service-kit';

/** Okta's default grace for a rotated refresh token used again. */
export const DEFAULT_REFRESH_REUSE_GRACE_SECONDS = 30;

export interface RefreshGrantDeps extends PublicGrantDeps {
  /** REFRESH_REUSE_GRACE_SECONDS: how long the refresh token rotated last answers again with its successor (0: never). */
  refreshReuseGraceSeconds?: number | undefined;
}

export function createRefreshTokenGrant(deps: RefreshGrantDeps) {
  const graceMs = (deps.refreshReuseGraceSeconds ?? DEFAULT_REFRESH_REUSE_GRACE_SECONDS) * 1000;

  return async function refreshToken(body: TokenRequest, authorization: string | undefined, sandbox: boolean): Promise<TokenResponse> {
    const clientId = publicClientId(body, authorization);
    if (!body.refresh_token) throw appError('invalid_request', 'refresh_token is missing.', { fields: [{ field: 'refresh_token', message: 'is required' }] });
    const grantId = grantIdOf(body.refresh_token);
    const found = grantId ? await deps.store.findGrant(grantId) : null;
    if (!found) throw invalidGrant('The refresh token is unknown or expired.');
    const { grant } = found;
    const { scopes, audience } = checkRefresh(grant, body, { clientId, sandbox, publicBaseUrl: deps.publicBaseUrl });

    const seal = successorSeal(body.refresh_token);
    const successor = newRefreshToken(grant.grant_id);
    const outcome = await deps.store.rotateRefresh(grant.grant_id, digest(body.refresh_token), digest(successor), seal.seal(successor), graceMs);
    if (outcome.kind === 'rotated') return issueGrantTokens(deps, grant, scopes, audience, successor).response;
    if (outcome.kind === 'grace') {
      // A parallel request rotated this token a moment ago: the same successor, a new access token of the grant.
      const earlier = seal.open(outcome.sealedSuccessor);
      if (earlier) return issueGrantTokens(deps, grant, scopes, audience, earlier).response;
    }
    if (outcome.kind === 'reused') throw invalidGrant('The refresh token was already used; every token of its grant is revoked.');
    throw invalidGrant('The refresh token is revoked or unknown.');
  };
}
