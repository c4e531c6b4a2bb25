// Shared pieces of the component tests: a real Redis under a key prefix of
// the test file's own, and a logger whose lines the test can read back.
// (service-kit cannot use test-kit, which depends on it.)
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger, type Logger } from '../src/index.js';
import { deleteByPattern } from '../src/redis.js';

export interface TestRedis {
  redis: Redis;
  prefix: string;
  cleanup(): Promise<void>;
}

/** REDIS_URL (default redis://127.0.0.1:6379) with a fresh prefix; fails at once when nothing answers. */
export async function createTestRedis(name: string): Promise<TestRedis> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 2_000, retryStrategy: () => null });
  try {
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(
      `Component tests need a real Redis at ${url}: start one or set REDIS_URL. (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  const prefix = `test:service-kit:${name}:${randomBytes(4).toString('hex')}:`;
  return {
    redis,
    prefix,
    async cleanup() {
      await deleteByPattern(redis, `${prefix}*`);
      redis.disconnect();
    },
  };
}

export type LogLine = Record<string, unknown> & { level: string; msg?: string };

export interface CapturedLogs {
  logger: Logger;
  lines: LogLine[];
  /** Everything written, as the raw text an operator would see. */
  text(): string;
}

/** A real pino logger from the kit, writing into memory instead of stdout. */
export function captureLogs(level = 'debug', service = 'test'): CapturedLogs {
  const raw: string[] = [];
  const lines: LogLine[] = [];
  const logger = createLogger({
    service,
    level,
    destination: {
      write(chunk: string) {
        raw.push(chunk);
        lines.push(JSON.parse(chunk) as LogLine);
      },
    },
  });
  return { logger, lines, text: () => raw.join('') };
}

/** Polls until `probe` returns a value; log lines of a finished response are written just after it. */
export async function eventually<T>(probe: () => T | undefined | Promise<T | undefined>, what: string, attempts = 100): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

export const BASE_URL = 'http://api.test.local';
export const SECRET = 'component-test-internal-secret-0123456789';
