// An authorization request, checked in the order RFC 6749 §4.1.2.1 asks.
// First the client and its redirect URI: a problem there ends on our own
// page, never in a redirect (`redirectUriOf`). Only then the rest
// (`checkAuthorizationRequest`), whose problems may go back to the client;
// the authorize controller decides whether they do (a verified client only).
import type { Scope } from '@msa/contracts';
import type { ResolvedClient } from '../clients/client-directory.js';
import { isS256Challenge } from './pkce.js';
import { matchRedirectUri } from './redirect-uris.js';
import { audienceFor } from './resource-indicator.js';
import { narrowScopes } from './scopes.js';

/** The query of GET /oauth/authorize as the router parsed it. */
export type AuthorizeQuery = Record<string, unknown>;

export type RedirectCheck = { ok: true; redirectUri: string; sent: boolean } | { ok: false; detail: string };

/** Error codes of the authorization response (RFC 6749 §4.1.2.1, RFC 8707). */
export type AuthorizationErrorCode = 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target';

export type RequestCheck =
  | { ok: true; state: string | undefined; codeChallenge: string; scopes: Scope[]; resource: string }
  | { ok: false; error: AuthorizationErrorCode; description: string; state: string | undefined };

export const STATE_MAX_LENGTH = 2048;

export function first(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The redirect URI the response goes to, or why there is none we may use. */
export function redirectUriOf(client: ResolvedClient, query: AuthorizeQuery): RedirectCheck {
  const requested = first(query.redirect_uri);
  if (requested === undefined) {
    // OAuth 2.1 §4.1.1: optional only when the client registered exactly one.
    if (client.redirect_uris.length !== 1) return { ok: false, detail: 'redirect_uri is missing.' };
    return { ok: true, redirectUri: client.redirect_uris[0]!, sent: false };
  }
  if (!matchRedirectUri(requested, client.redirect_uris)) return { ok: false, detail: 'redirect_uri is not registered for this client.' };
  return { ok: true, redirectUri: requested, sent: true };
}

/** Everything after the redirect URI, in order; the first problem is the answer. */
export function checkAuthorizationRequest(client: ResolvedClient, query: AuthorizeQuery, publicBaseUrl: string): RequestCheck {
  const state = first(query.state);
  const fail = (error: AuthorizationErrorCode, description: string): RequestCheck => ({ ok: false, error, description, state });
  if (first(query.response_type) !== 'code') return fail('unsupported_response_type', 'response_type must be code.');
  const challenge = first(query.code_challenge);
  if (!challenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (first(query.code_challenge_method) !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256; plain is not accepted.');
  if (!isS256Challenge(challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');
  const scope = narrowScopes(client.scopes, first(query.scope));
  if (!scope.ok) return fail('invalid_scope', `scope must be a subset of: ${client.scopes.join(' ')}.`);
  const target = audienceFor(publicBaseUrl, query.resource as string | string[] | undefined);
  if (!target.ok) return fail('invalid_target', target.message);
  if (state !== undefined && state.length > STATE_MAX_LENGTH) return fail('invalid_request', `state is longer than ${STATE_MAX_LENGTH} characters.`);
  return { ok: true, state, codeChallenge: challenge, scopes: scope.scopes, resource: target.audience };
}

/** The client's redirect URI with the response parameters added to its own query. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.href;
}
