// POST /oauth/register (RFC 7591): credentials for the client credentials
// grant, counted with POST /v1/keys, or a public client of the authorization
// code grant, counted on a day quota of its own.
import {
  ClientRegistrationRequest,
  LIMITS,
  PublicClientRegistrationRequest,
  type ClientRegistration,
  type PublicClientRegistration,
} from '@msa/contracts';
import { appError, parseOr } from '@msa/service-kit';
import { rateLimitedError, setRateLimitHeaders, withReservation } from '@msa/service-kit/limits';
import type { Request, RequestHandler, Response } from 'express';
import { randomBase62 } from '../../domain/credentials.js';
import { PUBLIC_CLIENT_ID_PREFIX } from '../clients/client-directory.js';
import type { OAuthDeps } from '../oauth-deps.js';
import { OAUTH_PATHS } from '../paths.js';
import { isPublicClientRegistration, publicClientProblems, registrationScopes } from '../rules/client-registration.js';
import { formatScopes } from '../rules/scopes.js';
import { noStore } from './page-response.js';

const INVALID = 'The client metadata is invalid.';

async function registerConfidentialClient(deps: OAuthDeps, req: Request, res: Response): Promise<void> {
  const body = parseOr(ClientRegistrationRequest, req.body ?? {}, 'invalid_client_metadata', INVALID);
  const scope = registrationScopes(body.scope);
  if (!scope.ok) throw appError('invalid_client_metadata', INVALID, { fields: [scope.problem] });
  if (req.ctx.sandbox && body.mode === 'live') {
    throw appError('invalid_client_metadata', 'Live clients cannot be registered on the sandbox.', {
      fields: [{ field: 'mode', message: 'must be sandbox on the sandbox' }],
      hint: `Register live clients with POST ${deps.publicBaseUrl}${OAUTH_PATHS.register}, the production path, without sandbox credentials.`,
    });
  }
  const authMethod = body.token_endpoint_auth_method ?? 'client_secret_basic';
  const input = { name: body.client_name, email: body.contacts[0]!, scopes: scope.scopes, mode: body.mode, tokenEndpointAuthMethod: authMethod };
  const reservation = await deps.credentials.reserve(req, res);
  const created = await withReservation(reservation, () => deps.credentials.create(input));
  deps.counters.credentialsCreated.inc({ origin: 'registration', mode: created.record.mode });
  req.log.info({ clientId: created.clientId, mode: created.record.mode }, 'client registered');

  const response: ClientRegistration & { contacts: string[] } = {
    client_id: created.clientId,
    client_secret: created.clientSecret,
    client_id_issued_at: Math.floor(Date.parse(created.record.created_at) / 1000),
    // 0: the secret does not expire (RFC 7591 §3.2.1).
    client_secret_expires_at: 0,
    client_name: created.record.name,
    contacts: body.contacts,
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: authMethod,
    scope: formatScopes(created.record.scopes),
    api_key: created.apiKey,
    mode: created.record.mode,
  };
  noStore(res);
  res.status(201).json(response);
}

/** RFC 7591 for a public client of the authorization code grant: no secret, no contacts, not a principal. */
async function registerPublicClient(deps: OAuthDeps, req: Request, res: Response): Promise<void> {
  const body = parseOr(PublicClientRegistrationRequest, req.body ?? {}, 'invalid_client_metadata', INVALID);
  const { scopes, problems } = publicClientProblems(body.redirect_uris, body.scope);
  if (problems.length) throw appError('invalid_client_metadata', INVALID, { fields: problems });

  const reservation = await deps.publicClientQuota.consume(deps.addressKey(req.ctx.ip));
  setRateLimitHeaders(res, reservation.state);
  if (!reservation.allowed) {
    throw rateLimitedError(
      reservation.state,
      `This address has registered ${LIMITS.publicClientRegistrationsPerIpPerDay} public clients today.`,
      'Reuse the client you registered, or retry after Retry-After seconds.',
    );
  }
  const now = Math.floor(Date.now() / 1000);
  const client = {
    client_id: PUBLIC_CLIENT_ID_PREFIX + randomBase62(24),
    client_name: body.client_name ?? 'MCP client',
    redirect_uris: body.redirect_uris,
    scopes,
    created_at: new Date(now * 1000).toISOString(),
  };
  await deps.store.saveClient(client);
  req.log.info({ clientId: client.client_id }, 'public client registered');
  const response: PublicClientRegistration = {
    client_id: client.client_id,
    client_id_issued_at: now,
    client_name: client.client_name,
    redirect_uris: client.redirect_uris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: formatScopes(client.scopes),
  };
  noStore(res);
  res.status(201).json(response);
}

export function registerController(deps: OAuthDeps): RequestHandler {
  return (req, res) => (isPublicClientRegistration(req.body) ? registerPublicClient(deps, req, res) : registerConfidentialClient(deps, req, res));
}
