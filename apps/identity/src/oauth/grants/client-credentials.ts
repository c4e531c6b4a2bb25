// The client credentials grant (RFC 6749 §4.4) for the credentials of
// POST /v1/keys and POST /oauth/register: the client authenticates with HTTP
// Basic or in the body (RFC 6749 §2.3.1), never both. Wrong secrets per
// client_id back off exponentially; the pause is checked before the secret,
// so guessing stops for the block, right guesses included.
import type { Mode, Scope, TokenRequest, TokenResponse } from '@msa/contracts';
import { appError, type AppError } from '@msa/service-kit';
import { rateLimitedError, type BackoffLimiter, type LimitState } from '@msa/service-kit/limits';
import { hashSecret, looksLikeClientId, matchesHash } from '../../domain/credentials.js';
import type { TokenKeys } from '../../domain/token-keys.js';
import { authenticateClientRequest, type ClientCredentials } from '../rules/client-authentication.js';
import { signAccessToken } from '../tokens/access-token.js';
import { checkClientCredentialsRequest } from './grant-checks.js';

const BASIC_CHALLENGE = 'Basic realm="msa", charset="UTF-8"';
// Compared against when the client id is unknown, so both failures take as long.
const UNKNOWN_CLIENT_HASH = hashSecret('unknown client');

/** What the grant reads of a confidential client's stored credentials. */
export interface ConfidentialClient {
  client_id: string;
  client_secret_hash: string;
  name: string;
  scopes: Scope[];
  mode: Mode;
  tier: string;
}

export interface ClientCredentialsDeps {
  findClient(clientId: string): Promise<ConfidentialClient | null>;
  /** Wrong client secrets per client_id, with exponential back-off. */
  failures: BackoffLimiter;
  tokenKeys: TokenKeys;
  publicBaseUrl: string;
}

export interface ClientCredentialsRequest {
  authorization: string | undefined;
  sandbox: boolean;
  /** Receives the back-off's state, for the RateLimit headers. */
  rateLimit(state: LimitState): void;
}

export interface ClientCredentialsToken {
  response: TokenResponse;
  clientId: string;
  authMethod: ClientCredentials['method'];
  audience: string;
}

/**
 * RFC 6749 §5.2: the Basic challenge answers a client that tried Basic. A
 * client that sent its secret in the body (or nothing) gets none: strict
 * clients such as oauth4webapi read any challenge as "authenticate with this
 * scheme" and would never report invalid_client.
 */
function invalidClient(message: string, basicTried: boolean): AppError {
  return appError('invalid_client', message, basicTried ? { headers: { 'WWW-Authenticate': BASIC_CHALLENGE } } : {});
}

/** The client's credentials as sent, or the error of what is wrong with how they were sent. */
function credentialsOf(authorization: string | undefined, body: TokenRequest): ClientCredentials {
  const auth = authenticateClientRequest(authorization, body);
  if (auth.kind === 'conflict') {
    throw appError('invalid_request', auth.message, {
      hint: 'Use one client authentication method: HTTP Basic, or client_id and client_secret in the body.',
    });
  }
  if (auth.kind === 'missing') throw invalidClient('Client authentication is missing: send client_id and client_secret, or HTTP Basic.', false);
  if (auth.kind === 'malformed_basic') throw invalidClient('The HTTP Basic credentials cannot be read.', true);
  return auth.credentials;
}

export function createClientCredentialsGrant(deps: ClientCredentialsDeps) {
  async function authenticate(body: TokenRequest, req: ClientCredentialsRequest): Promise<{ client: ConfidentialClient; method: ClientCredentials['method'] }> {
    const { clientId, clientSecret, method } = credentialsOf(req.authorization, body);
    const wellFormed = looksLikeClientId(clientId);
    // The hash tag keeps a client's failure count and block in one slot.
    const failureKey = `{${clientId}}`;
    if (wellFormed) {
      const gate = await deps.failures.check(failureKey);
      if (!gate.allowed) {
        req.rateLimit(gate.state);
        throw rateLimitedError(
          gate.state,
          'Too many wrong client secrets for this client_id; token requests for it are paused.',
          'Wait for Retry-After seconds and send the right client_secret; each further wrong one doubles the pause.',
        );
      }
    }
    const client = wellFormed ? await deps.findClient(clientId) : null;
    const secretMatches = matchesHash(clientSecret, client?.client_secret_hash ?? UNKNOWN_CLIENT_HASH);
    if (!client || !secretMatches) {
      if (wellFormed) req.rateLimit((await deps.failures.fail(failureKey)).state);
      throw invalidClient('Unknown client or wrong client secret.', method === 'client_secret_basic');
    }
    await deps.failures.reset(failureKey);
    return { client, method };
  }

  return async function clientCredentials(body: TokenRequest, req: ClientCredentialsRequest): Promise<ClientCredentialsToken> {
    const { client, method } = await authenticate(body, req);
    const { scopes, audience } = checkClientCredentialsRequest(client.scopes, body, deps.publicBaseUrl);
    const token = signAccessToken(deps.tokenKeys, deps.publicBaseUrl, {
      clientId: client.client_id,
      name: client.name,
      scopes,
      mode: client.mode,
      tier: client.tier,
      sandbox: req.sandbox,
      audience,
    });
    return {
      response: { access_token: token.accessToken, token_type: 'Bearer', expires_in: token.expiresIn, scope: token.scope },
      clientId: client.client_id,
      authMethod: method,
      audience,
    };
  };
}
