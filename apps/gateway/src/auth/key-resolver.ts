import { createHash } from 'node:crypto';
import type { CallContext, IdentityClient, Principal } from '@msa/contracts';

interface Entry {
  principal: Principal | null;
  expires: number;
}

export interface KeyResolverOptions {
  identity: IdentityClient;
  ttlMs: number;
  /** Unknown keys are remembered for less time, so a key created a moment ago works soon. */
  negativeTtlMs?: number;
  maxEntries?: number;
}

export interface ResolveOptions {
  /**
   * Answer from the cache alone, never asking identity: for callers whose
   * address is past its failed-authentication budget. A key resolved up to
   * `STALE_OK_MS` ago still counts (keys cannot be revoked, and their scopes
   * are fixed at creation), so a valid caller behind that address keeps working.
   */
  cachedOnly?: boolean;
}

const STALE_OK_MS = 10 * 60_000;

export interface KeyResolver {
  (apiKey: string, ctx: CallContext, opts?: ResolveOptions): Promise<Principal | null>;
  /** The principal of a valid key resolved within the TTL, from the cache alone; null otherwise. */
  fresh?(apiKey: string): Principal | null;
}

/**
 * Resolves API keys through identity's introspection, with a short
 * in-process cache keyed by the key's hash (the key itself is never kept).
 */
export function createKeyResolver({ identity, ttlMs, negativeTtlMs = Math.min(ttlMs, 2_000), maxEntries = 10_000 }: KeyResolverOptions): KeyResolver {
  const cache = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Principal | null>>();
  const hashOf = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

  function fresh(apiKey: string): Principal | null {
    const hit = cache.get(hashOf(apiKey));
    return hit && hit.expires > Date.now() ? hit.principal : null;
  }

  async function resolve(apiKey: string, ctx: CallContext, opts: ResolveOptions = {}): Promise<Principal | null> {
    const hash = hashOf(apiKey);
    const now = Date.now();
    const hit = cache.get(hash);
    if (hit && hit.expires > now) return hit.principal;
    if (opts.cachedOnly) return hit?.principal && hit.expires + STALE_OK_MS > now ? hit.principal : null;

    let pending = inflight.get(hash);
    if (!pending) {
      pending = identity
        .introspect(ctx, apiKey)
        .then((r) => {
          const principal: Principal | null = r.active ? { ...r.principal, via: 'api_key' } : null;
          if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
          cache.set(hash, { principal, expires: Date.now() + (principal ? ttlMs : negativeTtlMs) });
          return principal;
        })
        .finally(() => inflight.delete(hash));
      inflight.set(hash, pending);
    }
    return pending;
  }
  return Object.assign(resolve, { fresh });
}
