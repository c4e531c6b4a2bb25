import { randomBytes } from 'node:crypto';
import { deleteByPattern, keysMatching } from '@msa/service-kit/redis';
import { Redis } from 'ioredis';

let containerUrl: Promise<string> | undefined;

/**
 * The Redis tests talk to: `REDIS_URL` when set, else a testcontainers
 * Redis when a Docker engine answers, else an error saying how to get one.
 */
export async function testRedisUrl(): Promise<string> {
  if (process.env.REDIS_URL) return process.env.REDIS_URL;
  containerUrl ??= (async () => {
    try {
      const { RedisContainer } = await import('@testcontainers/redis');
      const container = await new RedisContainer('redis:7-alpine').start();
      return container.getConnectionUrl();
    } catch (err) {
      throw new Error(
        'Tests need a real Redis: set REDIS_URL (e.g. redis://127.0.0.1:6379) or start a Docker engine for testcontainers. ' +
          `(testcontainers said: ${err instanceof Error ? err.message.split('\n')[0] : String(err)})`,
      );
    }
  })();
  return containerUrl;
}

/** A key prefix of its own for one test file, so files run in parallel. */
export function testPrefix(name: string): string {
  return `test:${name}:${randomBytes(4).toString('hex')}:`;
}

export interface TestRedis {
  url: string;
  redis: Redis;
  prefix: string;
  /** Deletes every key under the prefix (and the BullMQ prefix) and disconnects. */
  cleanup(): Promise<void>;
}

/** A connection and a fresh prefix for one test file. */
export async function createTestRedis(name: string): Promise<TestRedis> {
  const url = await testRedisUrl();
  const redis = new Redis(url, { maxRetriesPerRequest: 3 });
  const prefix = testPrefix(name);
  return {
    url,
    redis,
    prefix,
    async cleanup() {
      await deleteByPattern(redis, `${prefix}*`);
      await deleteByPattern(redis, `{${prefix}*`);
      redis.disconnect();
    },
  };
}

export { deleteByPattern, keysMatching };
