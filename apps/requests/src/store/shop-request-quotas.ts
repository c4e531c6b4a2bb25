// The daily quotas a shop request counts on. Each principal has its own (live
// and sandbox); besides, a sandbox request counts for its client address
// across every principal and key it uses, and a live request for its
// contact's mail domain across every principal, so that many free keys or
// many confirmed addresses of one catch-all domain do not multiply the day.
import { createHash } from 'node:crypto';
import { LIMITS } from '@msa/contracts';
import { createDailyQuota, type DailyQuota } from '@msa/service-kit/limits';
import type { RedisClient } from '@msa/service-kit';
import { mailboxDomain } from '@msa/service-kit';
import type { Mode } from '../domain/acceptance.js';
import type { CountedQuota } from './reserve-all.js';

/** Accepted shop requests per UTC day: per principal (or anonymous address), per address on the sandbox, per contact domain when live. */
export interface ShopRequestQuotas {
  live: DailyQuota;
  sandbox: DailyQuota;
  /** SANDBOX_REQUESTS_PER_ADDRESS_PER_DAY. */
  sandboxPerAddress: DailyQuota;
  /** LIVE_REQUESTS_PER_DOMAIN_PER_DAY. */
  livePerDomain: DailyQuota;
}

export interface ShopRequestQuotaLimits {
  sandboxPerAddress?: number;
  livePerDomain?: number;
}

export function createShopRequestQuotas(redis: RedisClient, prefix: string, limits: ShopRequestQuotaLimits = {}): ShopRequestQuotas {
  const quota = (name: string, points: number) => createDailyQuota({ redis, keyPrefix: `${prefix}quota:${name}`, policy: `${name}-day`, points });
  return {
    live: quota('shop-requests-live', LIMITS.liveShopRequestsPerDay),
    sandbox: quota('shop-requests-sandbox', LIMITS.sandboxShopRequestsPerDay),
    sandboxPerAddress: quota('shop-requests-sandbox-address', limits.sandboxPerAddress ?? LIMITS.sandboxShopRequestsPerAddressPerDay),
    livePerDomain: quota('shop-requests-live-domain', limits.livePerDomain ?? LIMITS.liveShopRequestsPerDomainPerDay),
  };
}

/**
 * The domain's key in a quota: a digest, so the count's key holds no part of
 * a contact's address and has a fixed length whatever the domain's.
 */
export function domainQuotaKey(email: string): string {
  return createHash('sha256').update(mailboxDomain(email)).digest('hex').slice(0, 32);
}

/** What a shop request counts on besides its owner: the address (sandbox) or the domain (live) key. */
export interface CountedKeys {
  ownerId: string;
  address?: string | undefined;
  domain?: string | undefined;
}

/** The quotas a request of `mode` counts on, in the order they are reserved: its owner's first. */
export function countedQuotas<Q = DailyQuota>(quotas: Record<keyof ShopRequestQuotas, Q>, mode: Mode, { ownerId, address, domain }: CountedKeys): CountedQuota<Q>[] {
  if (mode === 'live') return [{ quota: quotas.live, key: ownerId }, ...(domain ? [{ quota: quotas.livePerDomain, key: domain }] : [])];
  return [{ quota: quotas.sandbox, key: ownerId }, ...(address ? [{ quota: quotas.sandboxPerAddress, key: address }] : [])];
}

/** Gives back every unit a claim of `mode` counted (the reconciler, for a request never stored). */
export async function refundClaim(
  quotas: Record<keyof ShopRequestQuotas, Pick<DailyQuota, 'refund'>>,
  claim: CountedKeys & { day: string; mode: Mode },
  unit: string,
): Promise<void> {
  await Promise.all(countedQuotas(quotas, claim.mode, claim).map(({ quota, key }) => quota.refund(key, claim.day, unit)));
}
