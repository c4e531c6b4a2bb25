// @module `createWindowLimiter` (per minute), `createFailureLimiter`, `createBackoffLimiter`, `setRateLimitHeaders` / `rateLimitHeaders` (IETF `RateLimit-Policy`/`RateLimit`), `rateLimitedError` (429 + `Retry-After`); re-exports the daily quota (`daily-quota.ts`)
import type { Response } from 'express';
import type { RedisClient } from './redis.js';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { ConsumeResult, LimitState } from './daily-quota.js';
import { appError, type AppError } from './errors.js';

// The daily quota lives apart so a process can have it without rate-limiter-flexible; its users import it from here as before.
export * from './daily-quota.js';

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
