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
  /** Gives the unit back: the work it was reserved for was not accepted. */
  refund(): Promise<void>;
}

/**
 * A quota per UTC calendar day that counts accepted work: reserve before the
 * work (so concurrent calls cannot overshoot), refund when it is not accepted.
 */
export function createDailyQuota({ redis, keyPrefix, policy, points }: Omit<WindowLimiterOptions, 'windowSeconds'>) {
  const limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration: 86_400 });
  return {
    policy,
    points,
    async reserve(key: string, now = new Date()): Promise<Reservation> {
      const dayKey = `${key}:${utcDay(now)}`;
      const resetSeconds = secondsUntilUtcMidnight(now);
      const state = (remaining: number): LimitState => ({ policy, limit: points, windowSeconds: 86_400, remaining, resetSeconds });
      try {
        // The counter lives a little past midnight so a late call still sees the right day.
        const r = await limiter.consume(dayKey, 1, { customDuration: resetSeconds + 60 });
        let refunded = false;
        return {
          allowed: true,
          state: state(r.remainingPoints),
          refund: async () => {
            if (refunded) return;
            refunded = true;
            await limiter.reward(dayKey, 1);
          },
        };
      } catch (err) {
        if (err instanceof RateLimiterRes) {
          // A refused call consumed too; give it back so the count stays "accepted work".
          await limiter.reward(dayKey, 1).catch(() => undefined);
          return { allowed: false, state: state(0), refund: async () => undefined };
        }
        throw err;
      }
    },
  };
}
export type DailyQuota = ReturnType<typeof createDailyQuota>;
