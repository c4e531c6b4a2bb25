import type { CallContext, IdentityClient } from '@msa/contracts';
import { LRUCache } from 'lru-cache';

export interface GrantStatusOptions {
  identity: IdentityClient;
  systemCtx: () => CallContext;
  /** How long an active grant is believed without asking again: the longest a revoked grant's token still passes. */
  ttlMs: number;
  maxEntries?: number;
}

/**
 * Asks identity whether an access token's grant is still active, remembering
 * an active answer for `ttlMs` and a revoked one until it is evicted by size
 * (a grant is never reactivated). Concurrent questions about one grant share
 * one call.
 */
export function createGrantStatus({ identity, systemCtx, ttlMs, maxEntries = 10_000 }: GrantStatusOptions) {
  const answers = new LRUCache<string, boolean>({
    max: maxEntries,
    ttl: Math.max(ttlMs, 1),
    fetchMethod: async (grant, _stale, { options }) => {
      const { active } = await identity.grantStatus(systemCtx(), grant);
      // A TTL of 0 is lru-cache's "never expires".
      if (!active) options.ttl = 0;
      return active;
    },
  });

  async function grantActive(grant: string): Promise<boolean> {
    return (await answers.fetch(grant)) === true;
  }
  return Object.assign(grantActive, {
    /** Believes a grant revoked from now on without asking (this replica saw it revoked). */
    revoked(grant: string): void {
      answers.set(grant, false, { ttl: 0 });
    },
  });
}
export type GrantStatus = ReturnType<typeof createGrantStatus>;
