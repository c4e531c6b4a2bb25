import { Redis, type RedisOptions } from 'ioredis';

export type { Redis } from 'ioredis';

export type RedisRole = 'api' | 'worker';

/**
 * `api` connections fail fast so an outage becomes a clear 5xx instead of a
 * hung request; `worker` connections wait outages out, as BullMQ requires.
 */
export function createRedis(url: string, role: RedisRole = 'api', extra: RedisOptions = {}): Redis {
  const base: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 5_000 };
  return new Redis(url, { ...base, ...extra });
}

/** Resolves when Redis answers PING; for /readyz. */
export async function pingRedis(redis: Redis): Promise<void> {
  const pong = await redis.ping();
  if (pong !== 'PONG') throw new Error(`unexpected PING answer: ${pong}`);
}
