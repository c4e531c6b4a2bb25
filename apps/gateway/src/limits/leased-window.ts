// The gateway's per-minute limits, counted in Redis across replicas without
// a Redis round trip per request. A replica takes units of a caller's minute
// from Redis in leases and spends them locally; it asks Redis again only when
// its lease is spent. Redis never hands out more units than the limit, so
// across any number of replicas a caller is never let through more often
// than the limit. A lease is at most a tenth of what is left of the minute
// (and at most MAX_LEASE), so near the limit leases are single units and the
// count is exact; units a replica leased but the caller did not spend there
// are lost to the caller for that minute: at most one lease per replica,
// which is where the limit may be reached early (docs/decisions/performance-budget.md).
// While Redis cannot answer, each replica counts in memory, as before.
import type { ConsumeResult, LimitState, WindowLimiter } from '@msa/service-kit/limits';
import type { RedisClient } from '@msa/service-kit';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

/** The most units one lease takes: one Redis round trip per this many requests of a busy caller. */
export const MAX_LEASE = 25;
/** A lease takes at most this share of what is left of the caller's minute. */
const LEASE_SHARE = 10;

// The window starts with the first unit taken, as rate-limiter-flexible's
// did on the same keys; a lease takes what is asked or what is left.
const LEASE = `
redis.call('SET', KEYS[1], 0, 'PX', ARGV[3], 'NX')
local used = tonumber(redis.call('GET', KEYS[1]))
local grant = math.min(tonumber(ARGV[1]), tonumber(ARGV[2]) - used)
if grant > 0 then used = redis.call('INCRBY', KEYS[1], grant) else grant = 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) ttl = tonumber(ARGV[3]) end
return {grant, used, ttl}`;

export interface LeasedWindowOptions {
  redis: RedisClient;
  /** Keys are `<prefix>:<key>`, as the limiters before used. */
  keyPrefix: string;
  policy: string;
  points: number;
  windowSeconds: number;
}

/** One caller's minute as this replica knows it. */
interface Lease {
  /** Units leased here and not spent yet. */
  left: number;
  /** Units taken from Redis by every replica when this one last asked. */
  taken: number;
  /** When the window ends, by this process's clock. */
  endsAt: number;
  /** A lease being asked for; concurrent requests of the caller wait for it. */
  asking: Promise<void> | null;
}

const LEASE_COMMAND = 'gatewayLeaseWindow';
type LeaseCommand = (key: string, want: number, points: number, windowMs: number) => Promise<[number, number, number]>;

/** Sizes the next lease: a tenth of what is left, at least the cost, at most MAX_LEASE (or the cost). */
export function leaseSize(points: number, taken: number, cost: number): number {
  return Math.max(cost, Math.min(MAX_LEASE, Math.floor((points - taken) / LEASE_SHARE)));
}

export interface LeasedWindowLimiter extends WindowLimiter {
  /** Spends from a running lease of this process: the answer without a promise, or undefined when Redis must be asked. */
  consumeNow(key: string, cost?: number): ConsumeResult | undefined;
}

export function createLeasedWindowLimiter({ redis, keyPrefix, policy, points, windowSeconds }: LeasedWindowOptions): LeasedWindowLimiter {
  const windowMs = windowSeconds * 1000;
  const leases = new Map<string, Lease>();
  const insurance = new RateLimiterMemory({ keyPrefix, points, duration: windowSeconds });
  // The same script under one name for every limiter on the client.
  redis.defineCommand(LEASE_COMMAND, { numberOfKeys: 1, lua: LEASE });
  const lease = (redis as unknown as Record<typeof LEASE_COMMAND, LeaseCommand>)[LEASE_COMMAND].bind(redis);
  const state = (remaining: number, resetMs: number): LimitState => ({ policy, limit: points, windowSeconds, remaining: Math.max(0, remaining), resetSeconds: resetMs / 1000 });

  // Ended windows are dropped as the next request of the caller comes, and the rest every window.
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, l] of leases) if (l.endsAt <= now && !l.asking) leases.delete(key);
  }, windowMs);
  sweep.unref();

  async function ask(key: string, l: Lease, cost: number): Promise<void> {
    const [grant, taken, ttl] = await lease(`${keyPrefix}:${key}`, leaseSize(points, l.taken, cost), points, windowMs);
    const now = Date.now();
    // A new window in Redis: what was left here belonged to the old one.
    if (now + ttl > l.endsAt + 1_000 || l.endsAt <= now) l.left = 0;
    l.left += grant;
    l.taken = taken;
    l.endsAt = now + ttl;
  }

  async function consumeInRedis(key: string, cost: number): Promise<ConsumeResult> {
    let known = leases.get(key);
    // An entry whose first lease is still being asked for is current too.
    if (!known || (known.endsAt <= Date.now() && !known.asking)) {
      known = { left: 0, taken: 0, endsAt: 0, asking: null };
      leases.set(key, known);
    }
    const l = known;
    // Every unit of this window is taken (by any replica): refused here, Redis is not asked again until it ends.
    if (l.left < cost && l.taken >= points && l.endsAt > Date.now()) return refused(l);
    while (l.left < cost) {
      if (l.asking) {
        await l.asking;
        continue;
      }
      const asking = ask(key, l, cost - l.left).finally(() => (l.asking = null));
      l.asking = asking;
      await asking;
      // Redis had no more units (or too few for this batch): refused, nothing spent.
      if (l.left < cost) return refused(l);
    }
    l.left -= cost;
    return { allowed: true, state: state(points - (l.taken - l.left), l.endsAt - Date.now()) };
  }

  function refused(l: Lease): ConsumeResult {
    return { allowed: false, state: state(points - (l.taken - l.left), l.endsAt - Date.now()) };
  }

  async function consumeInMemory(key: string, cost: number): Promise<ConsumeResult> {
    try {
      const r = await insurance.consume(key, cost);
      return { allowed: true, state: state(r.remainingPoints, r.msBeforeNext) };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      if (cost > 1) await insurance.reward(key, cost);
      return { allowed: false, state: state(cost > 1 ? points - (err.consumedPoints - cost) : err.remainingPoints, err.msBeforeNext) };
    }
  }

  function consumeNow(key: string, cost = 1): ConsumeResult | undefined {
    const known = leases.get(key);
    if (!known || known.left < cost || known.endsAt <= Date.now()) return undefined;
    known.left -= cost;
    return { allowed: true, state: state(points - (known.taken - known.left), known.endsAt - Date.now()) };
  }

  return {
    policy,
    points,
    consumeNow,
    /**
     * Counts `cost` units (a request, or each message of a batch); a batch
     * larger than what is left is refused whole and spends nothing. Without
     * Redis (not connected, or a command fails), counts in this process.
     */
    async consume(key: string, cost = 1): Promise<ConsumeResult> {
      // The common case: units leased here before, in a window still running.
      const now = consumeNow(key, cost);
      if (now) return now;
      if (redis.status !== 'ready') return consumeInMemory(key, cost);
      try {
        return await consumeInRedis(key, cost);
      } catch {
        return consumeInMemory(key, cost);
      }
    },
  };
}
