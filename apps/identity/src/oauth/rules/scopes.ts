import { SCOPES, type Scope } from '@msa/contracts';

const KNOWN = new Set<string>(SCOPES);

/**
 * OpenID's scope for refresh tokens, which hosts send by habit. Every grant
 * of the authorization code flow gets a refresh token anyway, so the value
 * is accepted wherever a scope is and then dropped: it is never a scope of
 * a token. The authorization server metadata lists it.
 */
export const OFFLINE_ACCESS = 'offline_access';

export type ScopeRequest = { ok: true; scopes: Scope[] } | { ok: false; unknown: string[]; notGranted: string[] };

/** Space-separated scope values (RFC 6749 §3.3); extra spaces tolerated, `offline_access` dropped. */
export function splitScopeString(value: string): string[] {
  return value.split(/[ \t]+/).filter((s) => s.length > 0 && s !== OFFLINE_ACCESS);
}

/** Scopes in the order of the specification, without duplicates. */
export function canonicalScopes(scopes: Iterable<string>): Scope[] {
  const set = new Set(scopes);
  return SCOPES.filter((s) => set.has(s));
}

export function formatScopes(scopes: readonly Scope[]): string {
  return canonicalScopes(scopes).join(' ');
}

/**
 * The scopes a token request gets: all granted ones when `requested` is
 * absent or blank (or names only `offline_access`), else the requested subset; anything unknown or not
 * granted refuses the request (invalid_scope) rather than being dropped.
 */
export function narrowScopes(granted: readonly Scope[], requested: string | undefined): ScopeRequest {
  const asked = requested === undefined ? [] : splitScopeString(requested);
  if (asked.length === 0) return { ok: true, scopes: canonicalScopes(granted) };
  const unknown = asked.filter((s) => !KNOWN.has(s));
  const grantedSet = new Set<string>(granted);
  const notGranted = asked.filter((s) => KNOWN.has(s) && !grantedSet.has(s));
  if (unknown.length || notGranted.length) return { ok: false, unknown, notGranted };
  return { ok: true, scopes: canonicalScopes(asked) };
}

/** A registration's `scope` string: all scopes when absent, else each value must be known. */
export function parseRegistrationScope(value: string | undefined): { ok: true; scopes: Scope[] } | { ok: false; unknown: string[] } {
  const asked = value === undefined ? [] : splitScopeString(value);
  if (asked.length === 0) return { ok: true, scopes: [...SCOPES] };
  const unknown = asked.filter((s) => !KNOWN.has(s));
  if (unknown.length) return { ok: false, unknown };
  return { ok: true, scopes: canonicalScopes(asked) };
}
