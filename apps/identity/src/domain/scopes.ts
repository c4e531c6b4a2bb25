import { SCOPES, type Scope } from '@msa/contracts';

const KNOWN = new Set<string>(SCOPES);

export type ScopeRequest = { ok: true; scopes: Scope[] } | { ok: false; unknown: string[]; notGranted: string[] };

/** Space-separated scope values (RFC 6749 §3.3); extra spaces tolerated. */
export function splitScopeString(value: string): string[] {
  return value.split(/[ \t]+/).filter((s) => s.length > 0);
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
 * absent or blank, else the requested subset; anything unknown or not
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
