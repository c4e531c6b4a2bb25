import { LIMITS } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { createDailyQuota, rateLimitedError, setRateLimitHeaders, type Reservation } from '@msa/service-kit/limits';
import type { Request, Response } from 'express';

export const CREDENTIAL_QUOTA_POLICY = 'credentials-day';

/**
 * Keys and client registrations share one count per client IP and UTC day
 * (spec §8), counted under `addressKey` (an IPv6 client by its prefix). Only
 * accepted creations count: the caller refunds its reservation when the
 * creation fails.
 */
export function createCredentialQuota(redis: RedisClient, keyPrefix: string, addressKey: (ip: string) => string) {
  const quota = createDailyQuota({
    redis,
    keyPrefix: `${keyPrefix}quota:credentials`,
    policy: CREDENTIAL_QUOTA_POLICY,
    points: LIMITS.keyCreationsPerIpPerDay,
  });
  return {
    /** Reserves one creation for the caller's address, or throws the 429. */
    /** `unit` names what the unit counts, so a retry of the same creation takes none. */
    async reserve(req: Request, res: Response, unit?: string): Promise<Reservation> {
      const reservation = await quota.reserve(addressKey(req.ctx.ip), new Date(), unit);
      setRateLimitHeaders(res, reservation.state);
      if (!reservation.allowed) {
        throw rateLimitedError(
          reservation.state,
          `This address has created ${LIMITS.keyCreationsPerIpPerDay} sets of credentials today.`,
          `Credential creation is limited to ${LIMITS.keyCreationsPerIpPerDay} per IP address per UTC day; retry after Retry-After seconds (00:00 UTC), or reuse credentials you already have.`,
        );
      }
      return reservation;
    },
  };
}
export type CredentialQuota = ReturnType<typeof createCredentialQuota>;
