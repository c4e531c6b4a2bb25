// What a token request must say before a grant issues anything, as pure
// checks that throw the OAuth error (RFC 6749 §5.2) of the first problem.
import type { Scope, TokenRequest } from '@msa/contracts';
import { appError, type AppError } from '@msa/service-kit';
import { verifierMatches } from '../rules/pkce.js';
import { audienceFor, sameResource, servedResources } from '../rules/resource-indicator.js';
import { formatScopes, narrowScopes } from '../rules/scopes.js';
import type { AuthorizationCode, Grant } from '../store/oauth-records.js';

export function invalidGrant(message: string): AppError {
  return appError('invalid_grant', message);
}

/** A public client names itself in the body and sends no secret. */
export function publicClientId(body: TokenRequest, authorization: string | undefined): string {
  if (authorization || body.client_secret) {
    throw appError('invalid_client', 'This grant is for public clients: send client_id in the body and no client secret.');
  }
  if (!body.client_id) throw appError('invalid_client', 'client_id is missing.');
  return body.client_id;
}

/** The code and its PKCE verifier, both required before the code is looked up. */
export function requireCodeParameters(body: TokenRequest): { code: string; verifier: string } {
  if (!body.code) throw appError('invalid_request', 'code is missing.', { fields: [{ field: 'code', message: 'is required' }] });
  if (!body.code_verifier) {
    throw appError('invalid_request', 'code_verifier is missing: PKCE is required.', { fields: [{ field: 'code_verifier', message: 'is required' }] });
  }
  return { code: body.code, verifier: body.code_verifier };
}

/**
 * A `resource` of the token request must be the one the code or grant was
 * made for; a trailing slash may differ. Returns the token's audience: the
 * resource as this request spelled it, else as the authorization request did.
 */
export function checkResource(publicBaseUrl: string, bound: string, requested: TokenRequest['resource']): string {
  if (requested === undefined || requested === '') return bound;
  const target = audienceFor(publicBaseUrl, requested);
  if (!target.ok) throw appError('invalid_target', `The requested resource is not allowed: ${target.message}`);
  if (!sameResource(target.audience, bound)) throw appError('invalid_target', `This grant is for the resource ${bound}.`);
  return target.audience;
}

/** A first use of a code, by the client, issuer, redirect URI and verifier it was made for; returns the token's audience. */
export function checkCodeRedemption(code: AuthorizationCode, body: TokenRequest, ask: { clientId: string; verifier: string; sandbox: boolean; publicBaseUrl: string }): string {
  const { request } = code;
  if (request.client_id !== ask.clientId) throw invalidGrant('The authorization code was issued to another client.');
  if (request.sandbox !== ask.sandbox) throw invalidGrant('The authorization code was issued by the other environment\'s issuer.');
  if (body.redirect_uri !== undefined ? body.redirect_uri !== request.redirect_uri : request.redirect_uri_sent) {
    throw invalidGrant('redirect_uri differs from the one of the authorization request.');
  }
  if (!verifierMatches(ask.verifier, request.code_challenge)) throw invalidGrant('The code_verifier does not match the code_challenge.');
  return checkResource(ask.publicBaseUrl, request.resource, body.resource);
}

/** A refresh of `grant`, by its client on its issuer; returns the scopes and audience of the new access token. */
export function checkRefresh(grant: Grant, body: TokenRequest, ask: { clientId: string; sandbox: boolean; publicBaseUrl: string }): { scopes: Scope[]; audience: string } {
  if (grant.client_id !== ask.clientId) throw invalidGrant('The refresh token was issued to another client.');
  if (grant.sandbox !== ask.sandbox) throw invalidGrant('The refresh token was issued by the other environment\'s issuer.');
  const scopes = narrowScopes(grant.scopes, body.scope);
  if (!scopes.ok) throw appError('invalid_scope', `scope must be a subset of: ${formatScopes(grant.scopes)}.`);
  return { scopes: scopes.scopes, audience: checkResource(ask.publicBaseUrl, grant.resource, body.resource) };
}

/** The scopes and audience of a client credentials token: a subset of the client's scopes, for a resource this API serves. */
export function checkClientCredentialsRequest(granted: readonly Scope[], body: TokenRequest, publicBaseUrl: string): { scopes: Scope[]; audience: string } {
  const narrowed = narrowScopes(granted, body.scope);
  if (!narrowed.ok) {
    const problems = [
      ...narrowed.unknown.map((s) => `'${s}' is not a scope of this API`),
      ...narrowed.notGranted.map((s) => `'${s}' is not granted to this client`),
    ];
    throw appError('invalid_scope', `The requested scope is not allowed: ${problems.join('; ')}.`, {
      fields: [{ field: 'scope', message: `must be a space-separated subset of: ${formatScopes(granted)}` }],
    });
  }
  const target = audienceFor(publicBaseUrl, body.resource);
  if (!target.ok) {
    throw appError('invalid_target', `The requested resource is not allowed: ${target.message}`, {
      fields: [{ field: 'resource', message: `must be one of: ${servedResources(publicBaseUrl).join(', ')}` }],
    });
  }
  return { scopes: narrowed.scopes, audience: target.audience };
}
