// @module `createWindowLimiter` (per minute), `createDailyQuota` (UTC day, units named by the work they count), `createFailureLimiter`, `createBackoffLimiter`, `setRateLimitHeaders` / `rateLimitHeaders` (IETF `RateLimit-Policy`/`RateLimit`), `rateLimitedError` (429 + `Retry-After`), `nextUtcMidnight`, `secondsUntilUtcMidnight`, `utcDay`
import { randomUUID } from 'node:crypto';
import type { Response } from 'express';
import type { RedisClient } from './redis.js';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
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
  // Every answer the gateway counts passes here: the two values are built
  // straight, without the record and entry arrays rateLimitHeaders makes.
  if (states.length === 0) return;
  appendHeader(res, 'RateLimit-Policy', policyValue(states));
  appendHeader(res, 'RateLimit', remainingValue(states));
}

function appendHeader(res: Response, name: string, value: string): void {
  const prev = res.getHeader(name);
  res.setHeader(name, prev ? `${String(prev)}, ${value}` : value);
}

function policyValue(states: readonly LimitState[]): string {
  let value = '';
  for (const s of states) value += `${value ? ', ' : ''}"${s.policy}";q=${s.limit};w=${s.windowSeconds}`;
  return value;
}

function remainingValue(states: readonly LimitState[]): string {
  let value = '';
  for (const s of states) value += `${value ? ', ' : ''}"${s.policy}";r=${Math.max(0, s.remaining)};t=${Math.max(0, Math.ceil(s.resetSeconds))}`;
  return value;
}

/** The same two headers as values, for an error that carries them (`AppError` extra.headers) to a response no one else rates. */
export function rateLimitHeaders(...states: LimitState[]): Record<string, string> {
  if (states.length === 0) return {};
  return { 'RateLimit-Policy': policyValue(states), RateLimit: remainingValue(states) };
}

/** A 429 with Retry-After; `showQuota` adds the refusing policy's RateLimit headers to it as well. */
export function rateLimitedError(state: LimitState, message: string, hint?: string, { showQuota = false } = {}): AppError {
  const retryAfter = Math.max(1, Math.ceil(state.resetSeconds));
  return appError('rate_limited', message, {
    headers: { ...(showQuota ? rateLimitHeaders(state) : {}), 'Retry-After': String(retryAfter) },
    ...(hint ? { hint } : {}),
  });
}

/** The next 00:00 UTC after `now`: when a daily count starts again (at midnight itself, the one a day later). */
export function nextUtcMidnight(now = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

/** Seconds from `now` to the next 00:00 UTC. */
export function secondsUntilUtcMidnight(now = new Date()): number {
  return Math.max(1, Math.ceil((nextUtcMidnight(now).getTime() - now.getTime()) / 1000));
}

export function utcDay(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export interface WindowLimiterOptions {
  redis: RedisClient;
  /** Key prefix; keys become `<prefix>:<key>`. */
  keyPrefix: string;
  policy: string;
  points: number;
  windowSeconds: number;
  /**
   * While Redis cannot answer (not connected, or a command fails), count in
   * this process's memory instead: the answer comes at once and the limit
   * still holds, per replica rather than in total. Give such a limiter a
   * client that fails fast (`enableOfflineQueue: false`, a short
   * `commandTimeout`) so a command never waits for an outage to end.
   */
  insurance?: boolean;
}

/** rate-limiter-flexible's options for a Redis limiter, with the in-memory insurance when asked for. */
function redisLimiterOptions({ redis, keyPrefix, points, windowSeconds, insurance }: WindowLimiterOptions) {
  return {
    storeClient: redis,
    keyPrefix,
    points,
    duration: windowSeconds,
    ...(insurance
      ? { rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds }) }
      : {}),
  };
}

export interface ConsumeResult {
  allowed: boolean;
  state: LimitState;
}

/** A fixed-window request limiter (per minute in the gateway). */
export function createWindowLimiter(options: WindowLimiterOptions) {
  const { policy, points, windowSeconds } = options;
  const limiter = new RateLimiterRedis(redisLimiterOptions(options));
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
    /**
     * Counts `cost` units (a request, or each message of a batch); Redis
     * errors propagate so the caller decides to fail open or closed. A
     * refused charge of several units is given back: a batch larger than
     * what is left is refused without spending what is left.
     */
    async consume(key: string, cost = 1): Promise<ConsumeResult> {
      try {
        const r = await limiter.consume(key, cost);
        return { allowed: true, state: state(r) };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        if (cost === 1) return { allowed: false, state: state(err) };
        await limiter.reward(key, cost);
        return { allowed: false, state: { ...state(err), remaining: Math.max(0, points - (err.consumedPoints - cost)) } };
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
export function createDailyQuota({ redis, keyPrefix, policy, points }: Omit<WindowLimiterOptions, 'windowSeconds' | 'insurance'>) {
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

/**
 * Runs `work` under a reserved unit and gives that unit back when the work
 * throws: work that failed was not accepted, so it does not count against
 * the day. A refund that fails goes to `onRefundError` (the failure of the
 * work is what the caller answers with); without one it is ignored.
 */
export async function withReservation<T>(
  reservation: Pick<Reservation, 'refund'>,
  work: () => Promise<T>,
  onRefundError: (err: unknown) => void = () => undefined,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    await reservation.refund().catch(onRefundError);
    throw err;
  }
}

export type FailureLimiterOptions = WindowLimiterOptions;

/**
 * Counts failures (wrong credentials) per key in a fixed window. `check`
 * reads the count without adding to it, so a caller past the budget is
 * refused before the expensive check, and only failures are counted.
 */
export function createFailureLimiter(options: FailureLimiterOptions) {
  const { policy, points, windowSeconds } = options;
  const limiter = new RateLimiterRedis(redisLimiterOptions(options));
  const state = (consumed: number, msBeforeNext: number): LimitState => ({
    policy,
    limit: points,
    windowSeconds,
    remaining: Math.max(0, points - consumed),
    resetSeconds: msBeforeNext > 0 ? msBeforeNext / 1000 : windowSeconds,
  });
  return {
    policy,
    points,
    /** Whether `key` has failures left; counts nothing. Redis errors propagate. */
    async check(key: string): Promise<ConsumeResult> {
      const r = await limiter.get(key);
      const consumed = r?.consumedPoints ?? 0;
      return { allowed: consumed < points, state: state(consumed, r?.msBeforeNext ?? 0) };
    },
    /** Counts one failure; `allowed` is false once the budget is spent. */
    async fail(key: string): Promise<ConsumeResult> {
      try {
        const r = await limiter.consume(key);
        return { allowed: true, state: state(r.consumedPoints, r.msBeforeNext) };
      } catch (err) {
        if (err instanceof RateLimiterRes) return { allowed: false, state: state(err.consumedPoints, err.msBeforeNext) };
        throw err;
      }
    },
  };
}
export type FailureLimiter = ReturnType<typeof createFailureLimiter>;

export interface BackoffLimiterOptions {
  redis: RedisClient;
  /** Key prefix; keys become `<prefix>:fails:<key>` and `<prefix>:block:<key>`. */
  keyPrefix: string;
  policy: string;
  /** Consecutive failures that cost nothing. */
  freeFailures: number;
  /** The block after the first failure past the free ones; each further failure doubles it. */
  baseBlockSeconds: number;
  maxBlockSeconds: number;
  /** How long a series of failures is remembered without a success. */
  memorySeconds: number;
}

/**
 * Consecutive failures per key with exponential back-off, after
 * rate-limiter-flexible's brute-force pattern: the first `freeFailures` cost
 * nothing, each one after that blocks the key twice as long as the one
 * before (up to `maxBlockSeconds`), and a success forgets them all. Every
 * call touches one key, so it is Cluster-safe.
 */
export function createBackoffLimiter({ redis, keyPrefix, policy, freeFailures, baseBlockSeconds, maxBlockSeconds, memorySeconds }: BackoffLimiterOptions) {
  const failures = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${keyPrefix}:fails`, points: freeFailures, duration: memorySeconds });
  // Only ever written with block(); a key is blocked while its count exceeds the single point.
  const blocks = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${keyPrefix}:block`, points: 1, duration: 1 });
  const state = (remaining: number, resetSeconds: number): LimitState => ({
    policy,
    limit: freeFailures,
    windowSeconds: memorySeconds,
    remaining,
    resetSeconds,
  });
  return {
    policy,
    /** Whether `key` may try now; when blocked, the state's reset is the rest of the block. */
    async check(key: string): Promise<ConsumeResult> {
      const b = await blocks.get(key);
      if (b && b.consumedPoints > 1 && b.msBeforeNext > 0) return { allowed: false, state: state(0, b.msBeforeNext / 1000) };
      return { allowed: true, state: state(freeFailures, memorySeconds) };
    },
    /** Counts one failure and blocks the key when it is past the free ones; `allowed` says whether the next try may run at once. */
    async fail(key: string): Promise<ConsumeResult> {
      const r = await failures.penalty(key, 1);
      const past = r.consumedPoints - freeFailures;
      if (past <= 0) return { allowed: true, state: state(freeFailures - r.consumedPoints, r.msBeforeNext / 1000) };
      const seconds = Math.min(maxBlockSeconds, baseBlockSeconds * 2 ** Math.min(past - 1, 30));
      await blocks.block(key, seconds);
      return { allowed: false, state: state(0, seconds) };
    },
    async reset(key: string): Promise<void> {
      await Promise.all([failures.delete(key), blocks.delete(key)]);
    },
  };
}
export type BackoffLimiter = ReturnType<typeof createBackoffLimiter>;
