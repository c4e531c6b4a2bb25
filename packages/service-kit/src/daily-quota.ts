// @module `createDailyQuota` (UTC day, units named by the work they count; `rememberRefusals` keeps every answer, with a `tally` beside it and a `lookBack` to the day before), `withReservation`, `luaScript` (EVALSHA, EVAL once the server forgot it), `nextUtcMidnight`, `secondsUntilUtcMidnight`, `utcDay`; no Redis library loaded, so a worker uses it from the main entry
/*
 * A quota per UTC calendar day that counts named units of work. Apart from
 * `limits.ts` because it needs no Redis library of its own: the main entry
 * re-exports it, and a process that never rate-limits (the intake worker)
 * does not load rate-limiter-flexible for it.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RedisClient } from './redis.js';

/** One policy's state after a request, for the IETF RateLimit headers and Retry-After. */
export interface LimitState {
  policy: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

export interface ConsumeResult {
  allowed: boolean;
  state: LimitState;
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

type ScriptArg = string | number | Buffer;

/** A Lua script run with EVALSHA, falling back to EVAL once after a Redis restart or failover forgot it. */
export function luaScript(lua: string) {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (redis: RedisClient, keys: string[], args: ScriptArg[]): Promise<unknown> => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}

export interface Reservation extends ConsumeResult {
  /** The UTC day (YYYY-MM-DD) the unit counts on: the day before when `lookBack` found it there. */
  day: string;
  /** What the unit was reserved for; reserving the same unit again counts it once. */
  unit: string;
  /** Whether this call decided the unit; false when it answered with an earlier call's decision. */
  first?: boolean;
  /** With `rememberRefusals`: the units asked for the key on `day` so far, granted or refused, this one included. */
  asked?: number;
  /** With a `tally`: its count on `day` so far. */
  tally?: number;
  /** Gives the unit back: the work it was reserved for was not accepted. */
  refund(): Promise<void>;
}

export interface DailyQuotaOptions {
  redis: RedisClient;
  /** Keys become `<prefix>:<key>:<day>`. */
  keyPrefix: string;
  policy: string;
  points: number;
  /** How long a day's keys live after each write; by default until an hour past the midnight that ends the day. */
  retentionSeconds?: number;
  /**
   * Remembers refused units as well: asking again for a refused unit gets
   * the same refusal and is not counted again, so every unit has one answer.
   * Such a quota keeps its decisions: it gives no refunds.
   */
  rememberRefusals?: boolean;
}

/** Per call, for a quota that remembers refusals. On a Cluster, every key a call touches must share its slot (one {hash tag}). */
export interface ReserveOptions {
  /** A counter (`<tally>:<day>`) counting each unit once, granted or refused, beside the quota: several keys may share it. */
  tally?: string;
  /** Also looks for the unit's decision on the UTC day before, for work asked just before midnight and retried after it. */
  lookBack?: boolean;
}

// One hash per key and day whose fields are the reserved units: a unit
// reserved twice (a retry of the same request) counts once, and a refund
// removes exactly that unit, so a refund for a unit never reserved is harmless.
const RESERVE = luaScript(`
local n = redis.call('HLEN', KEYS[1])
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {1, n, 0} end
if n >= tonumber(ARGV[2]) then return {0, n, 1} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {1, n + 1, 1}`);

/*
 * With rememberRefusals: one string per key and day, the JSON
 * {granted, asked, units: {<unit>: 1 granted | 0 refused}}. A string takes
 * its lifetime in the write itself (SET … EX) where a hash needs an EXPIRE
 * of its own, so a first decision runs three commands (one more for a
 * tally's first unit of the day): the read, the tally's INCR and the write;
 * a decision found runs one, or two with a tally.
 * KEYS: the day's record, its tally (when ARGV[4] is 1), then the day
 * before's record and tally (when ARGV[5] is 1). ARGV: unit, points, ttl,
 * tally?, look back?
 * Returns {allowed, first, granted, asked, tally, 1 when found on the day before}.
 */
const DECIDE = luaScript(`
local unit = ARGV[1]
local tallied = ARGV[4] == '1'
local function read(key)
  local raw = redis.call('GET', key)
  if raw then return cjson.decode(raw) end
end
local function tallyOf(key) return tallied and tonumber(redis.call('GET', key) or '0') or 0 end
local function answer(day, tally, before) return {day.units[unit], 0, day.granted, day.asked, tallyOf(tally), before} end
local step = tallied and 2 or 1
local day = read(KEYS[1]) or {granted = 0, asked = 0, units = {}}
if day.units[unit] then return answer(day, KEYS[2], 0) end
if ARGV[5] == '1' then
  local before = read(KEYS[1 + step])
  if before and before.units[unit] then return answer(before, KEYS[2 + step], 1) end
end
local tally = 0
if tallied then
  tally = redis.call('INCR', KEYS[2])
  if tally == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
end
local allowed = day.granted < tonumber(ARGV[2])
if allowed then day.granted = day.granted + 1 end
day.asked = day.asked + 1
day.units[unit] = allowed and 1 or 0
redis.call('SET', KEYS[1], cjson.encode(day), 'EX', ARGV[3])
return {allowed and 1 or 0, 1, day.granted, day.asked, tally, 0}`);

const DAY_MS = 86_400_000;

/**
 * A quota per UTC calendar day that counts accepted work: reserve a unit
 * before the work (so concurrent calls cannot overshoot), refund it when the
 * work is not accepted. Units are named, so a crashed request's unit can be
 * refunded later by whoever finds the work was never stored.
 */
export function createDailyQuota({ redis, keyPrefix, policy, points, retentionSeconds, rememberRefusals = false }: DailyQuotaOptions) {
  const keyOf = (key: string, day: string) => `${keyPrefix}:${key}:${day}`;
  const stateOf = (granted: number, now: Date): LimitState => ({
    policy,
    limit: points,
    windowSeconds: 86_400,
    remaining: Math.max(0, points - granted),
    resetSeconds: secondsUntilUtcMidnight(now),
  });
  // The count lives a little past midnight so a late refund still finds its day.
  const ttlOf = (now: Date) => retentionSeconds ?? secondsUntilUtcMidnight(now) + 3_600;
  const refund = async (key: string, day: string, unit: string) => {
    if (rememberRefusals) throw new Error(`the ${policy} quota keeps its decisions: it gives no refunds`);
    await redis.hdel(keyOf(key, day), unit);
  };

  async function reserveCounted(key: string, now: Date, unit: string): Promise<Reservation> {
    const day = utcDay(now);
    const [allowed, used, first] = (await RESERVE(redis, [keyOf(key, day)], [unit, points, ttlOf(now), now.toISOString()])) as [number, number, number];
    return {
      allowed: allowed === 1,
      day,
      unit,
      first: first === 1,
      state: stateOf(used, now),
      refund: allowed === 1 ? () => refund(key, day, unit) : async () => undefined,
    };
  }

  async function reserveRemembered(key: string, now: Date, unit: string, { tally, lookBack = false }: ReserveOptions): Promise<Reservation> {
    const days = lookBack ? [utcDay(now), utcDay(new Date(now.getTime() - DAY_MS))] : [utcDay(now)];
    const keys = days.flatMap((day) => (tally === undefined ? [keyOf(key, day)] : [keyOf(key, day), `${tally}:${day}`]));
    const args = [unit, points, ttlOf(now), tally === undefined ? 0 : 1, lookBack ? 1 : 0];
    const [allowed, first, granted, asked, counted, before] = (await DECIDE(redis, keys, args)) as [number, number, number, number, number, number];
    return {
      allowed: allowed === 1,
      day: days[before === 1 ? 1 : 0]!,
      unit,
      first: first === 1,
      asked,
      ...(tally === undefined ? {} : { tally: counted }),
      state: stateOf(granted, now),
      refund: () => refund(key, days[0]!, unit),
    };
  }

  return {
    policy,
    points,
    /** `options` need `rememberRefusals`. */
    async reserve(key: string, now = new Date(), unit: string = randomUUID(), options: ReserveOptions = {}): Promise<Reservation> {
      if (rememberRefusals) return reserveRemembered(key, now, unit, options);
      if (options.tally !== undefined || options.lookBack) throw new Error('a tally and a look back need rememberRefusals');
      return reserveCounted(key, now, unit);
    },
    /** Refunds a unit reserved on `day`; a no-op when it was never reserved. */
    refund,
    /** Units granted for `key` on the day of `now`. */
    async used(key: string, now = new Date()): Promise<number> {
      if (rememberRefusals) {
        const day = await redis.get(keyOf(key, utcDay(now)));
        return day ? (JSON.parse(day) as { granted: number }).granted : 0;
      }
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
