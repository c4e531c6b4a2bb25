// Dynamic client registration (RFC 7591): which kind of client a
// registration asks for, and what is wrong with its metadata.
import type { FieldProblem, Scope } from '@msa/contracts';
import { redirectUriProblem } from './redirect-uris.js';
import { parseRegistrationScope } from './scopes.js';

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

function unknownScopeProblem(unknown: string[]): FieldProblem {
  return { field: 'scope', message: `unknown scope ${unknown.map((s) => `'${s}'`).join(', ')}` };
}

/** The scopes a registration asks for, or the field problem of the unknown ones. */
export function registrationScopes(scope: string | undefined): { ok: true; scopes: Scope[] } | { ok: false; problem: FieldProblem } {
  const parsed = parseRegistrationScope(scope);
  return parsed.ok ? parsed : { ok: false, problem: unknownScopeProblem(parsed.unknown) };
}

/** A public client's redirect URIs and scope, every problem as a field of its own. */
export function publicClientProblems(redirectUris: readonly string[], scope: string | undefined): { scopes: Scope[]; problems: FieldProblem[] } {
  const problems: FieldProblem[] = redirectUris.flatMap((uri, i) => {
    const problem = redirectUriProblem(uri);
    return problem ? [{ field: `redirect_uris.${i}`, message: problem }] : [];
  });
  const scopes = registrationScopes(scope);
  if (!scopes.ok) problems.push(scopes.problem);
  return { scopes: scopes.ok ? scopes.scopes : [], problems };
}
