import {
  ClientRegistrationRequest,
  LIMITS,
  PublicClientRegistrationRequest,
  TokenRequest,
  type ClientRegistration,
  type PublicClientRegistration,
  type TokenResponse,
} from '@msa/contracts';
import { appError, methodNotAllowed, parseOr } from '@msa/service-kit';
import { rateLimitedError, setRateLimitHeaders, withReservation } from '@msa/service-kit/limits';
import { Router, type Request, type Response } from 'express';
import { signAccessToken } from '../domain/access-token.js';
import { authenticateClientRequest } from '../domain/client-authentication.js';
import { createCredentials } from '../domain/create-credentials.js';
import { hashSecret, looksLikeClientId, matchesHash, randomBase62 } from '../domain/credentials.js';
import { PUBLIC_CLIENT_ID_PREFIX } from '../oauth/clients.js';
import { redirectUriProblem } from '../oauth/redirect-uris.js';
import { audienceFor, servedResources } from '../domain/resource-indicator.js';
import { formatScopes, narrowScopes, parseRegistrationScope } from '../domain/scopes.js';
import type { CredentialRecord } from '../store/credential-store.js';
import type { RouteDeps } from './context.js';

const BASIC_CHALLENGE = 'Basic realm="msa", charset="UTF-8"';
// Compared against when the client id is unknown, so both failures take as long.
const UNKNOWN_CLIENT_HASH = hashSecret('unknown client');

/**
 * RFC 6749 §5.2: the Basic challenge answers a client that tried Basic. A
 * client that sent its secret in the body (or nothing) gets none: strict
 * clients such as oauth4webapi read any challenge as "authenticate with this
 * scheme" and would never report invalid_client.
 */
function invalidClient(message: string, basicTried: boolean) {
  return appError('invalid_client', message, basicTried ? { headers: { 'WWW-Authenticate': BASIC_CHALLENGE } } : {});
}

/** RFC 6749 §5.1: token responses are never cached. */
function noStore(res: Response) {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

export function oauthRoutes(deps: RouteDeps): Router {
  const router = Router();
  const env = { publicBaseUrl: deps.publicBaseUrl };

  async function authenticate(req: Request, res: Response, body: TokenRequest): Promise<{ record: CredentialRecord; method: string }> {
    const auth = authenticateClientRequest(req.get('authorization'), body);
    if (auth.kind === 'conflict') {
      throw appError('invalid_request', auth.message, {
        hint: 'Use one client authentication method: HTTP Basic, or client_id and client_secret in the body.',
      });
    }
    if (auth.kind === 'missing') {
      throw invalidClient('Client authentication is missing: send client_id and client_secret, or HTTP Basic.', false);
    }
    if (auth.kind === 'malformed_basic') throw invalidClient('The HTTP Basic credentials cannot be read.', true);

    const { clientId, clientSecret, method } = auth.credentials;
    const wellFormed = looksLikeClientId(clientId);
    // The hash tag keeps a client's failure count and block in one slot.
    const failureKey = `{${clientId}}`;
    if (wellFormed) {
      // Checked before the secret, so guessing stops for the block, right guesses included.
      const gate = await deps.tokenFailures.check(failureKey);
      if (!gate.allowed) {
        setRateLimitHeaders(res, gate.state);
        throw rateLimitedError(
          gate.state,
          'Too many wrong client secrets for this client_id; token requests for it are paused.',
          'Wait for Retry-After seconds and send the right client_secret; each further wrong one doubles the pause.',
        );
      }
    }
    const record = wellFormed ? await deps.store.findByClientId(clientId) : null;
    const secretMatches = matchesHash(clientSecret, record?.client_secret_hash ?? UNKNOWN_CLIENT_HASH);
    if (!record || !secretMatches) {
      if (wellFormed) setRateLimitHeaders(res, (await deps.tokenFailures.fail(failureKey)).state);
      throw invalidClient('Unknown client or wrong client secret.', method === 'client_secret_basic');
    }
    await deps.tokenFailures.reset(failureKey);
    return { record, method };
  }

  router
    .route('/oauth/token')
    .post(async (req, res) => {
      noStore(res);
      const body = parseOr(TokenRequest, req.body ?? {}, 'invalid_request', 'The token request has invalid parameters.');
      if (body.grant_type === '') {
        throw appError('invalid_request', 'grant_type is missing.', {
          fields: [{ field: 'grant_type', message: 'is required' }],
        });
      }
      if (body.grant_type === 'authorization_code' || body.grant_type === 'refresh_token') {
        const grant = body.grant_type === 'authorization_code' ? deps.grants.authorizationCode : deps.grants.refreshToken;
        try {
          const response = await grant(body, req.get('authorization'), req.ctx.sandbox);
          deps.counters.tokensIssued.inc({ auth_method: 'none' });
          res.json(response);
          return;
        } catch (err) {
          deps.counters.tokenRefusals.inc({ code: (err as { code?: string }).code ?? 'error' });
          throw err;
        }
      }
      if (body.grant_type !== 'client_credentials') {
        deps.counters.tokenRefusals.inc({ code: 'unsupported_grant_type' });
        throw appError('unsupported_grant_type', `Grant type '${body.grant_type}' is not supported.`, {
          fields: [{ field: 'grant_type', message: 'must be client_credentials, authorization_code or refresh_token' }],
        });
      }

      let client: Awaited<ReturnType<typeof authenticate>>;
      try {
        client = await authenticate(req, res, body);
      } catch (err) {
        deps.counters.tokenRefusals.inc({ code: (err as { code?: string }).code ?? 'error' });
        throw err;
      }
      const { record, method } = client;

      const narrowed = narrowScopes(record.scopes, body.scope);
      if (!narrowed.ok) {
        deps.counters.tokenRefusals.inc({ code: 'invalid_scope' });
        const problems = [
          ...narrowed.unknown.map((s) => `'${s}' is not a scope of this API`),
          ...narrowed.notGranted.map((s) => `'${s}' is not granted to this client`),
        ];
        throw appError('invalid_scope', `The requested scope is not allowed: ${problems.join('; ')}.`, {
          fields: [{ field: 'scope', message: `must be a space-separated subset of: ${formatScopes(record.scopes)}` }],
        });
      }

      const target = audienceFor(deps.publicBaseUrl, body.resource);
      if (!target.ok) {
        deps.counters.tokenRefusals.inc({ code: 'invalid_target' });
        throw appError('invalid_target', `The requested resource is not allowed: ${target.message}`, {
          fields: [{ field: 'resource', message: `must be one of: ${servedResources(deps.publicBaseUrl).join(', ')}` }],
        });
      }

      const token = signAccessToken(deps.tokenKeys, deps.publicBaseUrl, {
        clientId: record.client_id,
        name: record.name,
        scopes: narrowed.scopes,
        mode: record.mode,
        tier: record.tier,
        sandbox: req.ctx.sandbox,
        audience: target.audience,
      });
      deps.counters.tokensIssued.inc({ auth_method: method });
      req.log.info({ clientId: record.client_id, authMethod: method, sandbox: req.ctx.sandbox, audience: target.audience }, 'access token issued');
      const response: TokenResponse = {
        access_token: token.accessToken,
        token_type: 'Bearer',
        expires_in: token.expiresIn,
        scope: token.scope,
      };
      res.json(response);
    })
    .all(methodNotAllowed(env, ['POST']));

  router
    .route('/oauth/register')
    .post(async (req, res) => {
      if (isPublicClientRegistration(req.body)) return registerPublicClient(req, res);
      const body = parseOr(ClientRegistrationRequest, req.body ?? {}, 'invalid_client_metadata', 'The client metadata is invalid.');
      const scope = parseRegistrationScope(body.scope);
      if (!scope.ok) {
        throw appError('invalid_client_metadata', 'The client metadata is invalid.', {
          fields: [{ field: 'scope', message: `unknown scope ${scope.unknown.map((s) => `'${s}'`).join(', ')}` }],
        });
      }
      if (req.ctx.sandbox && body.mode === 'live') {
        throw appError('invalid_client_metadata', 'Live clients cannot be registered on the sandbox.', {
          fields: [{ field: 'mode', message: 'must be sandbox on the sandbox' }],
          hint: `Register live clients with POST ${deps.publicBaseUrl}/oauth/register, the production path, without sandbox credentials.`,
        });
      }
      const authMethod = body.token_endpoint_auth_method ?? 'client_secret_basic';
      const email = body.contacts[0]!;

      const reservation = await deps.quota.reserve(req, res);
      const created = await withReservation(reservation, () =>
        createCredentials(deps.store, {
          name: body.client_name,
          email,
          scopes: scope.scopes,
          mode: body.mode,
          origin: 'registration',
          tokenEndpointAuthMethod: authMethod,
        }),
      );
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
    })
    .all(methodNotAllowed(env, ['POST']));

  /** RFC 7591 for a public client of the authorization code grant: no secret, no contacts, not a principal. */
  async function registerPublicClient(req: Request, res: Response) {
    const body = parseOr(PublicClientRegistrationRequest, req.body ?? {}, 'invalid_client_metadata', 'The client metadata is invalid.');
    const fields = body.redirect_uris.flatMap((uri, i) => {
      const problem = redirectUriProblem(uri);
      return problem ? [{ field: `redirect_uris.${i}`, message: problem }] : [];
    });
    const scope = parseRegistrationScope(body.scope);
    if (!scope.ok) fields.push({ field: 'scope', message: `unknown scope ${scope.unknown.map((s) => `'${s}'`).join(', ')}` });
    if (fields.length) throw appError('invalid_client_metadata', 'The client metadata is invalid.', { fields });
    if (!scope.ok) return;

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
      scopes: scope.scopes,
      created_at: new Date(now * 1000).toISOString(),
    };
    await deps.oauth.saveClient(client);
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

  router
    .route('/oauth/revoke')
    .post(async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body.token !== 'string' || body.token === '') {
        throw appError('invalid_request', 'token is missing.', { fields: [{ field: 'token', message: 'is required' }] });
      }
      noStore(res);
      await deps.grants.revoke(body.token, typeof body.client_id === 'string' ? body.client_id : undefined);
      // RFC 7009 §2.2: 200 for a revoked token and for one that is not ours; what cannot be revoked was refused above.
      res.status(200).end();
    })
    .all(methodNotAllowed(env, ['POST']));

  return router;
}

/**
 * A registration for the authorization code grant rather than for
 * credentials: it names redirect URIs, or asks for no client authentication
 * or for the authorization code grant, and does not ask for client credentials.
 */
export function isPublicClientRegistration(body: unknown): boolean {
  if (!body || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  const grants = Array.isArray(b.grant_types) ? b.grant_types : [];
  if (grants.includes('client_credentials')) return false;
  return b.token_endpoint_auth_method === 'none' || grants.includes('authorization_code') || Array.isArray(b.redirect_uris);
}
