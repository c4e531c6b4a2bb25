// POST /oauth/token: parse, pick the grant, issue. Refusals are counted once,
// by withOutcome, under the error code the grant threw.
import { TokenRequest } from '@msa/contracts';
import { appError, parseOr, withOutcome } from '@msa/service-kit';
import { setRateLimitHeaders } from '@msa/service-kit/limits';
import type { Request, RequestHandler, Response } from 'express';
import type { OAuthDeps } from '../oauth-deps.js';
import { noStore } from './page-response.js';

type Issued = { response: object; authMethod: string };

/** The request's parameters; a body without grant_type is refused before any grant is counted. */
function parseTokenRequest(body: unknown): TokenRequest {
  const parsed = parseOr(TokenRequest, body ?? {}, 'invalid_request', 'The token request has invalid parameters.');
  if (parsed.grant_type === '') {
    throw appError('invalid_request', 'grant_type is missing.', { fields: [{ field: 'grant_type', message: 'is required' }] });
  }
  return parsed;
}

function grantOf(deps: OAuthDeps, body: TokenRequest, req: Request, res: Response): Promise<Issued> {
  const authorization = req.get('authorization');
  const sandbox = req.ctx.sandbox;
  switch (body.grant_type) {
    case 'authorization_code':
      return deps.grants.authorizationCode(body, authorization, sandbox).then((response) => ({ response, authMethod: 'none' }));
    case 'refresh_token':
      return deps.grants.refreshToken(body, authorization, sandbox).then((response) => ({ response, authMethod: 'none' }));
    case 'client_credentials':
      return deps.grants.clientCredentials(body, { authorization, sandbox, rateLimit: (state) => setRateLimitHeaders(res, state) }).then((token) => {
        req.log.info({ clientId: token.clientId, authMethod: token.authMethod, sandbox, audience: token.audience }, 'access token issued');
        return token;
      });
    default:
      throw appError('unsupported_grant_type', `Grant type '${body.grant_type}' is not supported.`, {
        fields: [{ field: 'grant_type', message: 'must be client_credentials, authorization_code or refresh_token' }],
      });
  }
}

export function tokenController(deps: OAuthDeps): RequestHandler {
  return async (req, res) => {
    noStore(res);
    const body = parseTokenRequest(req.body);
    const issued = await withOutcome(deps.counters.tokenRefusals, {}, async () => grantOf(deps, body, req, res), { refusalsOnly: 'code' });
    deps.counters.tokensIssued.inc({ auth_method: issued.authMethod });
    res.json(issued.response);
  };
}
