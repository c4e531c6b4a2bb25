// Reserving one unit on several daily quotas at once (a caller's own and its
// address's, say), all or none: a request one of them refuses counts on none.
import type { DailyQuota, Reservation } from '@msa/service-kit/limits';

export interface CountedQuota<Q = DailyQuota> {
  quota: Q;
  key: string;
}

/** The units one request reserved, all or none: the first refused one is `refused`, and those before it went back. */
export type Reservations = { allowed: true; reservations: Reservation[] } | { allowed: false; refused: Reservation };

/**
 * Reserves the unit `unit` on each quota in turn. When one refuses, the units
 * reserved before it go back, so a refused request counts nowhere.
 */
export async function reserveAll(counted: CountedQuota[], now: Date, unit: string): Promise<Reservations> {
  const reservations: Reservation[] = [];
  for (const { quota, key } of counted) {
    let reservation: Reservation;
    try {
      reservation = await quota.reserve(key, now, unit);
    } catch (err) {
      await refundAll(reservations).catch(() => undefined);
      throw err;
    }
    if (!reservation.allowed) {
      await refundAll(reservations);
      return { allowed: false, refused: reservation };
    }
    reservations.push(reservation);
  }
  return { allowed: true, reservations };
}

export async function refundAll(reservations: Pick<Reservation, 'refund'>[]): Promise<void> {
  await Promise.all(reservations.map((r) => r.refund()));
}

