import { hash as cryptoHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { CallContext, IdentityClient, Principal } from '@msa/contracts';
import { LRUCache } from 'lru-cache';
import { isIdentityUnavailable } from './identity-unavailable.js';

export interface KeyResolverOptions {
  identity: IdentityClient;
  ttlMs: number;
  /** Unknown keys are remembered for less time, so a key created a moment ago works soon. */
  negativeTtlMs?: number;
  maxEntries?: number;
  /**
   * How long past its TTL a resolved key still passes when identity cannot
   * answer (5xx, unreachable, too slow) and for `cachedOnly` lookups. Keys
   * cannot be revoked and their scopes are fixed at creation, so a key
   * identity knew stays valid; an unknown-key answer is never overridden.
   */
  staleMs?: number;
  /** A refresh of a stale key waits this long for identity before the stale principal answers (the refresh goes on). */
  staleWaitMs?: number;
  /** While identity is away, stale keys pass without waiting for it, and it is tried again at most this often. */
  retryAfterFailureMs?: number;
}

export interface ResolveOptions {
  /**
   * Answer from the cache alone, never asking identity: for callers whose
   * address is past its failed-authentication budget. A key resolved up to
   * `staleMs` past its TTL still counts, so a valid caller behind that
   * address keeps working.
   */
  cachedOnly?: boolean;
}

export interface KeyResolver {
  (apiKey: string, ctx: CallContext, opts?: ResolveOptions): Promise<Principal | null>;
  /** The principal of a valid key resolved within the TTL, from the cache alone; null otherwise. */
  fresh?(apiKey: string): Principal | null;
  /** Believes a key unknown from now on without asking (its credentials were deleted through this process). */
  forget?(apiKey: string): void;
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

const LATE: unique symbol = Symbol('late');
const ignore = () => undefined;

/**
 * Resolves API keys through identity's introspection, with a short
 * in-process cache keyed by the key's hash (the key itself is never kept).
 * Concurrent lookups of one key share one introspection. An expired entry
 * stays (until evicted by size): a failed refresh leaves it there, and
 * within `staleMs` it answers while identity is away (an outage of
 * identity's Redis), so a caller seen recently keeps working.
 */
export function createKeyResolver({
  identity,
  ttlMs,
  negativeTtlMs = Math.min(ttlMs, 2_000),
  maxEntries = 10_000,
  staleMs = 10 * 60_000,
  staleWaitMs = 500,
  retryAfterFailureMs = 1_000,
}: KeyResolverOptions): KeyResolver {
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
  // One call, no Hash object: this runs for every request with a key.
  const hashOf = (apiKey: string) => cryptoHash('sha256', apiKey);
  // Identity as this process last saw it: away after an outage answer or a
  // refresh that came too late, back with the next answer it gives.
  let identityAway = false;
  let lastTry = -Infinity;

  /** The principal of a valid key, fresh or expired less than `staleMs` ago; null otherwise. */
  function kept(hash: string): Principal | null {
    const entry = cache.get(hash, { allowStale: true });
    return entry?.principal && cache.getRemainingTTL(hash) > -staleMs ? entry.principal : null;
  }

  function awayNow(): void {
    identityAway = true;
    lastTry = Date.now();
  }

  function introspect(hash: string, lookup: Lookup): Promise<Principal | null> {
    return cache.fetch(hash, { context: lookup }).then(
      (resolved) => {
        identityAway = false;
        return resolved?.principal ?? null;
      },
      (err: unknown) => {
        if (isIdentityUnavailable(err)) awayNow();
        throw err;
      },
    );
  }

  /**
   * A refresh of a stale key. While identity is away the stale principal
   * answers at once, and one lookup per `retryAfterFailureMs` tries identity
   * in the background; otherwise identity's answer if it comes within
   * `staleWaitMs`, the stale principal if it fails or is late.
   */
  async function refresh(hash: string, lookup: Lookup, stale: Principal): Promise<Principal | null> {
    if (identityAway) {
      if (Date.now() - lastTry >= retryAfterFailureMs) {
        lastTry = Date.now();
        introspect(hash, lookup).catch(ignore);
      }
      return stale;
    }
    const answer = introspect(hash, lookup);
    answer.catch(ignore);
    const timer = new AbortController();
    const late = delay(staleWaitMs, LATE, { signal: timer.signal, ref: false }).catch((): typeof LATE => LATE);
    try {
      const principal: Principal | null | typeof LATE = await Promise.race([answer, late]);
      if (principal !== LATE) return principal;
      awayNow();
      return stale;
    } catch (err) {
      if (isIdentityUnavailable(err)) return stale;
      throw err;
    } finally {
      timer.abort();
    }
  }

  async function resolve(apiKey: string, ctx: CallContext, opts: ResolveOptions = {}): Promise<Principal | null> {
    const hash = hashOf(apiKey);
    if (opts.cachedOnly) return kept(hash);
    const current = cache.get(hash);
    if (current) return current.principal;
    const stale = kept(hash);
    return stale ? refresh(hash, { apiKey, ctx }, stale) : introspect(hash, { apiKey, ctx });
  }
  return Object.assign(resolve, {
    fresh: (apiKey: string): Principal | null => cache.get(hashOf(apiKey))?.principal ?? null,
    // A deleted key never comes back: unknown until evicted by size, never served stale.
    forget: (apiKey: string): void => void cache.set(hashOf(apiKey), { principal: null }, { ttl: 0 }),
  });
}
