import { createHash } from 'node:crypto';
import type { CallContext, IdentityClient, Principal } from '@msa/contracts';
import { LRUCache } from 'lru-cache';

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
   * `STALE_OK_MS` past its TTL still counts (keys cannot be revoked, and their
   * scopes are fixed at creation), so a valid caller behind that address keeps working.
   */
  cachedOnly?: boolean;
}

const STALE_OK_MS = 10 * 60_000;

export interface KeyResolver {
  (apiKey: string, ctx: CallContext, opts?: ResolveOptions): Promise<Principal | null>;
  /** The principal of a valid key resolved within the TTL, from the cache alone; null otherwise. */
  fresh?(apiKey: string): Principal | null;
}

/** An introspection's answer; `principal` is null for a key identity does not know. */
interface Resolved {
  principal: Principal | null;
}

/** What one lookup needs that the cache key (the key's hash) does not hold. */
interface Lookup {
  apiKey: string;
  ctx: CallContext;
}

/**
 * Resolves API keys through identity's introspection, with a short
 * in-process cache keyed by the key's hash (the key itself is never kept).
 * Concurrent lookups of one key share one introspection; an expired entry
 * stays (until evicted by size) for the `cachedOnly` answer, and a failed
 * refresh leaves it there.
 */
export function createKeyResolver({ identity, ttlMs, negativeTtlMs = Math.min(ttlMs, 2_000), maxEntries = 10_000 }: KeyResolverOptions): KeyResolver {
  const cache = new LRUCache<string, Resolved, Lookup>({
    max: maxEntries,
    // lru-cache reads a TTL of 0 as "forever"; 1 ms is "ask every time", as KEY_CACHE_TTL_MS=0 means.
    ttl: Math.max(ttlMs, 1),
    noDeleteOnStaleGet: true,
    noDeleteOnFetchRejection: true,
    fetchMethod: async (_hash, _stale, { context, options }) => {
      const r = await identity.introspect(context.ctx, context.apiKey);
      if (!r.active) options.ttl = Math.max(negativeTtlMs, 1);
      return { principal: r.active ? { ...r.principal, via: 'api_key' } : null };
    },
  });
  const hashOf = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

  function fresh(apiKey: string): Principal | null {
    return cache.get(hashOf(apiKey))?.principal ?? null;
  }

  async function resolve(apiKey: string, ctx: CallContext, opts: ResolveOptions = {}): Promise<Principal | null> {
    const hash = hashOf(apiKey);
    if (opts.cachedOnly) {
      const stale = cache.get(hash, { allowStale: true });
      return stale?.principal && cache.getRemainingTTL(hash) > -STALE_OK_MS ? stale.principal : null;
    }
    const resolved = await cache.fetch(hash, { context: { apiKey, ctx } });
    return resolved?.principal ?? null;
  }
  return Object.assign(resolve, { fresh });
}
