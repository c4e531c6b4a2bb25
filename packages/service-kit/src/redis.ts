import { Redis, ReplyError, type RedisOptions } from 'ioredis';
import { createLogger, type Logger } from './logger.js';

export type { Redis } from 'ioredis';

export type RedisRole = 'api' | 'worker';

export interface CreateRedisOptions extends RedisOptions {
  /**
   * Where connection errors are logged. Without one they still go through a
   * pino logger of their own: a client without an `error` listener makes
   * ioredis print unstructured `[ioredis] Unhandled error event` lines.
   */
  logger?: Logger;
  /** Names the connection in those log lines (`store`, `queue`); the role otherwise. */
  label?: string;
}

/** During an outage ioredis reports every reconnect attempt; one line per interval is enough. */
export const REDIS_ERROR_LOG_INTERVAL_MS = 10_000;

let fallbackLogger: Logger | undefined;

/**
 * `api` connections fail fast so an outage becomes a clear 503 instead of a
 * hung request; `worker` connections wait outages out, as BullMQ requires.
 * Every client logs its connection errors through pino, rate-limited.
 */
export function createRedis(url: string, role: RedisRole = 'api', extra: CreateRedisOptions = {}): Redis {
  const { logger, label, ...options } = extra;
  const base: RedisOptions =
    role === 'worker'
      ? { maxRetriesPerRequest: null, enableReadyCheck: true }
      : { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 5_000 };
  const redis = new Redis(url, { ...base, ...options });
  const log = logger ?? (fallbackLogger ??= createLogger({ service: 'redis' }));
  logRedisConnectionErrors(redis, log, label ?? role);
  return redis;
}

/**
 * Logs a client's connection errors as JSON lines: the first one at once,
 * then at most one per interval with the count of those left out, and one
 * line when the connection is back.
 */
export function logRedisConnectionErrors(redis: Redis, logger: Logger, label: string, intervalMs = REDIS_ERROR_LOG_INTERVAL_MS): void {
  const errors = throttledLog(logger, 'warn', 'redis connection error', intervalMs);
  let failing = false;
  redis.on('error', (err: Error) => {
    failing = true;
    errors({ err, connection: label });
  });
  redis.on('ready', () => {
    if (!failing) return;
    failing = false;
    errors.reset();
    logger.info({ connection: label }, 'redis connection restored');
  });
}

/**
 * A log call that writes at most one line per interval, adding how many
 * calls it left out since the last line; for error events that repeat during
 * an outage (ioredis reconnects, BullMQ queue and worker errors).
 */
export function throttledLog(logger: Logger, level: 'warn' | 'error', msg: string, intervalMs = REDIS_ERROR_LOG_INTERVAL_MS) {
  let last = 0;
  let suppressed = 0;
  const log = (fields: Record<string, unknown>) => {
    const now = Date.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    logger[level]({ ...fields, ...(suppressed ? { suppressed } : {}) }, msg);
    last = now;
    suppressed = 0;
  };
  return Object.assign(log, {
    reset() {
      last = 0;
      suppressed = 0;
    },
  });
}

const UNAVAILABLE_ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
// Plain `Error`s ioredis raises when it has no usable connection; it gives
// them no class or code of their own, so their fixed messages are all there is.
const UNAVAILABLE_MESSAGES = [
  'Connection is closed.',
  'Command timed out',
  "Stream isn't writeable and enableOfflineQueue options is false",
  "Cluster isn't ready and enableOfflineQueue options is false",
  'None of startup nodes is available',
  'Cluster is disconnected.',
  'Command aborted due to connection close',
  'Socket timeout.',
  'connect ETIMEDOUT',
];
// Replies a healthy command gets while Redis loads its data, fails over or
// reshards: the same command succeeds a moment later.
const TRANSIENT_REPLY = /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY)\b/;
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether `err` says Redis cannot be reached right now (connection refused or
 * lost, retries or command timeout exhausted, offline queue refused, cluster
 * down, dataset loading): a fault worth retrying, answered with 503.
 */
export function isRedisUnavailable(err: unknown): boolean {
  let e: unknown = err;
  // A cluster error carries the node's error; a wrapper its cause.
  for (let depth = 0; e instanceof Error && depth < 3; depth++) {
    const { name, message } = e;
    if (UNAVAILABLE_ERROR_NAMES.has(name)) return true;
    if (e instanceof ReplyError) return TRANSIENT_REPLY.test(message);
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
    e = (e as { lastNodeError?: unknown }).lastNodeError ?? e.cause;
  }
  return false;
}

/** Resolves when Redis answers PING; for /readyz. */
export async function pingRedis(redis: Redis): Promise<void> {
  const pong = await redis.ping();
  if (pong !== 'PONG') throw new Error(`unexpected PING answer: ${pong}`);
}
