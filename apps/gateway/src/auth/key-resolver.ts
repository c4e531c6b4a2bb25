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

/**
 * Resolves API keys through identity's introspection, with a short
 * in-process cache keyed by the key's hash (the key itself is never kept).
 */
export function createKeyResolver({ identity, ttlMs, negativeTtlMs = Math.min(ttlMs, 2_000), maxEntries = 10_000 }: KeyResolverOptions) {
  const cache = new Map<string, Entry>();
  const inflight = new Map<string, Promise<Principal | null>>();

  return async function resolve(apiKey: string, ctx: CallContext, opts: ResolveOptions = {}): Promise<Principal | null> {
    const hash = createHash('sha256').update(apiKey).digest('hex');
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
  };
}
export type KeyResolver = ReturnType<typeof createKeyResolver>;
