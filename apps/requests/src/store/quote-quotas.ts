// Quotes stored per UTC day: per principal, and per client address across
// every principal it uses and its anonymous calls. A quote costs Redis its
// bytes for its whole lifetime, so an address's day is bounded like its
// sandbox requests are.
import { LIMITS } from '@msa/contracts';
import { createDailyQuota, type DailyQuota } from '@msa/service-kit/limits';
import type { RedisClient } from '@msa/service-kit';
import type { CountedQuota } from './reserve-all.js';

export interface QuoteQuotas {
  /** QUOTES_PER_PRINCIPAL_PER_DAY. */
  perPrincipal: DailyQuota;
  /** QUOTES_PER_ADDRESS_PER_DAY. */
  perAddress: DailyQuota;
}

export interface QuoteQuotaLimits {
  perPrincipal?: number;
  perAddress?: number;
}

export function createQuoteQuotas(redis: RedisClient, prefix: string, limits: QuoteQuotaLimits = {}): QuoteQuotas {
  const quota = (name: string, points: number) => createDailyQuota({ redis, keyPrefix: `${prefix}quota:${name}`, policy: `${name}-day`, points });
  return {
    perPrincipal: quota('quotes-principal', limits.perPrincipal ?? LIMITS.quotesPerPrincipalPerDay),
    perAddress: quota('quotes-address', limits.perAddress ?? LIMITS.quotesPerAddressPerDay),
  };
}

/** The quotas a quote counts on, its principal's (when it has one) first, then its address's. */
export function quoteCountedQuotas(quotas: QuoteQuotas, { principalId, address }: { principalId?: string | undefined; address: string }): CountedQuota[] {
  return [...(principalId ? [{ quota: quotas.perPrincipal, key: principalId }] : []), { quota: quotas.perAddress, key: address }];
}
