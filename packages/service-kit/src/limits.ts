import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { appError, type AppError } from './errors.js';

/** One policy's state after a request, for the IETF RateLimit headers and Retry-After. */
export interface LimitState {
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Sets `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers:
 * `"name";q=…;w=…` and `"name";r=…;t=…`), appending to what an earlier hop set.
 */
export function setRateLimitHeaders(res: Response, ...states: LimitState[]): void {
  const append = (name: string, value: string) => {
    const prev = res.getHeader(name);
    res.setHeader(name, prev ? `${String(prev)}, ${value}` : value);
  };
  for (const s of states) {
    append('RateLimit-Policy', `"${s.policy}";q=${s.limit};w=${s.windowSeconds}`);
    append('RateLimit', `"${s.policy}";r=${Math.max(0, s.remaining)};t=${Math.max(0, Math.ceil(s.resetSeconds))}`);
  }
}

export function rateLimitedError(state: LimitState, message: string, hint?: string): AppError {
  const retryAfter = Math.max(1, Math.ceil(state.resetSeconds));
  return appError('rate_limited', message, {
    headers: { 'Retry-After': String(retryAfter) },
    ...(hint ? { hint } : {}),
  });
}

/** Seconds from `now` to the next 00:00 UTC. */
export function secondsUntilUtcMidnight(now = new Date()): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

export function utcDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export interface WindowLimiterOptions {
  redis: Redis;
  /** Key prefix; keys become `<prefix>:<key>`. */
  keyPrefix: string;
  policy: string;
  points: number;
  windowSeconds: number;
}

export interface ConsumeResult {
  allowed: boolean;
  state: LimitState;
}

/** A fixed-window request limiter (per minute in the gateway). */
export function createWindowLimiter({ redis, keyPrefix, policy, points, windowSeconds }: WindowLimiterOptions) {
  const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration: windowSeconds });
  const state = (r: RateLimiterRes): LimitState => ({
    policy,
    limit: points,
    windowSeconds,
    remaining: r.remainingPoints,
    resetSeconds: r.msBeforeNext / 1000,
  });
  return {
    policy,
    points,
    /** Counts one request; Redis errors propagate so the caller decides to fail open or closed. */
    async consume(key: string): Promise<ConsumeResult> {
      try {
        const r = await limiter.consume(key);
        return { allowed: true, state: state(r) };
      } catch (err) {
        if (err instanceof RateLimiterRes) return { allowed: false, state: state(err) };
        throw err;
      }
    },
  };
}
export type WindowLimiter = ReturnType<typeof createWindowLimiter>;

export interface Reservation extends ConsumeResult {
  /** The UTC day (YYYY-MM-DD) the unit counts on. */
  day: string;
  /** What the unit was reserved for; reserving the same unit again counts it once. */
  unit: string;
  /** Gives the unit back: the work it was reserved for was not accepted. */
  refund(): Promise<void>;
}

// One hash per key and day whose fields are the reserved units: a unit
// reserved twice (a retry of the same request) counts once, and a refund
// removes exactly that unit, so a refund for a unit never reserved is harmless.
const RESERVE = `
local n = redis.call('HLEN', KEYS[1])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {1, n} end
if n >= tonumber(ARGV[2]) then return {0, n} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {1, n + 1}`;

/**
 * A quota per UTC calendar day that counts accepted work: reserve a unit
 * before the work (so concurrent calls cannot overshoot), refund it when the
 * work is not accepted. Units are named, so a crashed request's unit can be
 * refunded later by whoever finds the work was never stored.
 */
export function createDailyQuota({ redis, keyPrefix, policy, points }: Omit<WindowLimiterOptions, 'windowSeconds'>) {
  const keyOf = (key: string, day: string) => `${keyPrefix}:${key}:${day}`;
  const refund = async (key: string, day: string, unit: string) => {
    await redis.hdel(keyOf(key, day), unit);
  };
  return {
    policy,
    points,
    async reserve(key: string, now = new Date(), unit: string = randomUUID()): Promise<Reservation> {
      const day = utcDay(now);
      const resetSeconds = secondsUntilUtcMidnight(now);
      // The count lives a little past midnight so a late refund still finds its day.
      const [allowed, used] = (await redis.eval(RESERVE, 1, keyOf(key, day), unit, String(points), String(resetSeconds + 3_600), now.toISOString())) as [number, number];
      return {
        allowed: allowed === 1,
        day,
        unit,
        state: { policy, limit: points, windowSeconds: 86_400, remaining: Math.max(0, points - used), resetSeconds },
        refund: allowed === 1 ? () => refund(key, day, unit) : async () => undefined,
      };
    },
    /** Refunds a unit reserved on `day`; a no-op when it was never reserved. */
    refund,
    /** Units reserved for `key` on the day of `now`. */
    async used(key: string, now = new Date()): Promise<number> {
      return redis.hlen(keyOf(key, utcDay(now)));
    },
  };
}
export type DailyQuota = ReturnType<typeof createDailyQuota>;
