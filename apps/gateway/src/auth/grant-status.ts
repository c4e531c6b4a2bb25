import type { CallContext, IdentityClient } from '@msa/contracts';

export interface GrantStatusOptions {
  identity: IdentityClient;
  systemCtx: () => CallContext;
  /** How long an active grant is believed without asking again: the longest a revoked grant's token still passes. */
  ttlMs: number;
  maxEntries?: number;
}

/**
 * Asks identity whether an access token's grant is still active, remembering
 * an active answer for `ttlMs` and a revoked one until the process ends
 * (a grant is never reactivated).
 */
export function createGrantStatus({ identity, systemCtx, ttlMs, maxEntries = 10_000 }: GrantStatusOptions) {
  const active = new Map<string, number>();
  const revoked = new Set<string>();
  const inflight = new Map<string, Promise<boolean>>();

  return async function grantActive(grant: string): Promise<boolean> {
    if (revoked.has(grant)) return false;
    const until = active.get(grant);
    if (until !== undefined && until > Date.now()) return true;
    let pending = inflight.get(grant);
    if (!pending) {
      pending = identity
        .grantStatus(systemCtx(), grant)
        .then(({ active: isActive }) => {
          if (active.size >= maxEntries) active.delete(active.keys().next().value!);
          if (isActive) active.set(grant, Date.now() + ttlMs);
          else {
            active.delete(grant);
            if (revoked.size >= maxEntries) revoked.delete(revoked.values().next().value!);
            revoked.add(grant);
          }
          return isActive;
        })
        .finally(() => inflight.delete(grant));
      inflight.set(grant, pending);
    }
    return pending;
  };
}
