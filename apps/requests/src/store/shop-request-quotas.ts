import { LIMITS } from '@msa/contracts';
import { createDailyQuota, type DailyQuota } from '@msa/service-kit/limits';
import type { RedisClient } from '@msa/service-kit';

/** Accepted shop requests per UTC day: live ones per principal, sandbox ones per principal or per IP. */
export interface ShopRequestQuotas {
  live: DailyQuota;
  sandbox: DailyQuota;
}

export function createShopRequestQuotas(redis: RedisClient, prefix: string): ShopRequestQuotas {
  return {
    live: createDailyQuota({
      redis,
      keyPrefix: `${prefix}quota:shop-requests-live`,
      policy: 'shop-requests-live-day',
      points: LIMITS.liveShopRequestsPerDay,
    }),
    sandbox: createDailyQuota({
      redis,
      keyPrefix: `${prefix}quota:shop-requests-sandbox`,
      policy: 'shop-requests-sandbox-day',
      points: LIMITS.sandboxShopRequestsPerDay,
    }),
  };
}
