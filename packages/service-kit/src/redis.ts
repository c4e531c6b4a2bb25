// @module `createRedis(topology, 'api' | 'worker', { logger, label })`: api connections fail fast, worker connections wait; connection errors logged through pino at most once per 10 s; `throttledLog`, `pingRedis`; re-exports the replication barrier
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { answerWithin } from './answer-within.js';
import type { RedisTopology } from './config.js';
import { createLogger, type Logger } from './logger.js';
import type { RedisClient } from './redis-client.js';

export type { Redis } from 'ioredis';
export { Cluster } from 'ioredis';
export { isRedisUnavailable } from './redis-errors.js';
export * from './redis-replication.js';
export type { RedisClient } from './redis-client.js';

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

/** The longest a worker connection's blocking command without a timeout of its own may wait. */
export const WORKER_BLOCKING_TIMEOUT_MS = 30_000;

/** During an outage ioredis reports every reconnect attempt; one line per interval is enough. */
export const REDIS_ERROR_LOG_INTERVAL_MS = 10_000;

let fallbackLogger: Logger | undefined;

/**
 * `api` connections fail fast so an outage becomes a clear 503 instead of a
 * hung request; `worker` connections wait outages out, as BullMQ requires.
 * Every client logs its connection errors through pino, rate-limited.
 */
export function createRedis(target: string | Exclude<RedisTopology, { kind: 'cluster' }>, role?: RedisRole, extra?: CreateRedisOptions): Redis;
export function createRedis(target: RedisTopology | string, role?: RedisRole, extra?: CreateRedisOptions): RedisClient;
export function createRedis(target: RedisTopology | string, role: RedisRole = 'api', extra: CreateRedisOptions = {}): RedisClient {
  const { logger, label, ...options } = extra;
  const topology: RedisTopology = typeof target === 'string' ? { kind: 'single', url: target, tls: false } : target;
  const base: RedisOptions =
    role === 'worker'
      ? // A blocking command (BullMQ's BZPOPMIN) queued for a node that died would
        // wait for ever, and the worker with it: ioredis answers it empty once its
        // own timeout (or this one, for a command without) has passed.
        { maxRetriesPerRequest: null, enableReadyCheck: true, blockingTimeout: WORKER_BLOCKING_TIMEOUT_MS }
      : // A command waits at most this long for a node, whatever the topology is doing.
        { maxRetriesPerRequest: 1, enableOfflineQueue: true, connectTimeout: 5_000, commandTimeout: 5_000 };
  const auth: RedisOptions = {
    ...(topology.username ? { username: topology.username } : {}),
    ...(topology.password ? { password: topology.password } : {}),
    ...(topology.tls ? { tls: {} } : {}),
  };
  let client: RedisClient;
  switch (topology.kind) {
    case 'single':
      // Credentials in the URL win over REDIS_USERNAME/REDIS_PASSWORD.
      client = new Redis(topology.url, { ...base, ...auth, ...options });
      break;
    case 'sentinel':
      client = new Redis({
        ...base,
        ...auth,
        sentinels: topology.sentinels,
        name: topology.name,
        ...(topology.sentinelPassword ? { sentinelPassword: topology.sentinelPassword } : {}),
        ...(topology.tls ? { enableTLSForSentinelMode: true } : {}),
        ...options,
      });
      break;
    case 'cluster': {
      const { enableOfflineQueue, ...nodeOptions } = { ...base, ...auth, ...options };
      const clusterOptions: ClusterOptions = {
        redisOptions: nodeOptions,
        enableOfflineQueue: enableOfflineQueue ?? true,
        // A failover moves slots: retry on MOVED/TRYAGAIN/CLUSTERDOWN briefly, never forever.
        retryDelayOnFailover: 200,
        retryDelayOnClusterDown: 300,
        retryDelayOnTryAgain: 200,
        maxRedirections: 16,
        slotsRefreshTimeout: 2_000,
        clusterRetryStrategy: (times) => Math.min(100 * 2 ** times, 5_000),
        ...(topology.natMap ? { natMap: topology.natMap } : {}),
        // Managed TLS clusters announce names the certificates are issued for.
        ...(topology.tls ? { dnsLookup: (address, callback) => callback(null, address) } : {}),
      };
      client = new Cluster(topology.nodes, clusterOptions);
      break;
    }
  }
  const log = logger ?? (fallbackLogger ??= createLogger({ service: 'redis' }));
  logRedisConnectionErrors(client, log, label ?? role);
  return client;
}

/**
 * Logs a client's connection errors as JSON lines: the first one at once,
 * then at most one per interval with the count of those left out, and one
 * line when the connection is back.
 */
export function logRedisConnectionErrors(redis: RedisClient, logger: Logger, label: string, intervalMs = REDIS_ERROR_LOG_INTERVAL_MS): void {
  const errors = throttledLog(logger, 'warn', 'redis connection error', intervalMs);
  let failing = false;
  redis.on('error', (err: Error) => {
    failing = true;
    errors({ err, connection: label });
  });
  // A Cluster also reports each node's trouble on its own.
  if (redis instanceof Cluster) {
    redis.on('node error', (err: Error, node: string) => {
      failing = true;
      errors({ err, connection: label, node });
    });
  }
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

const READY_TIMEOUT_MS = 2_000;

const within = <T>(work: Promise<T>, what: string): Promise<T> => answerWithin(work, READY_TIMEOUT_MS, what);

/**
 * Resolves when Redis can serve this client; for /readyz. On a Cluster that
 * is: the cluster says its state is ok, and every master this client routes
 * to answers PING, so a service never calls itself ready while the slots it
 * needs are on a node it cannot reach.
 */
export async function pingRedis(redis: RedisClient): Promise<void> {
  if (redis instanceof Cluster) {
    const info = String(await within(redis.cluster('INFO'), 'CLUSTER INFO'));
    const state = /cluster_state:(\w+)/.exec(info)?.[1];
    if (state !== 'ok') throw new Error(`cluster state is ${state ?? 'unknown'}`);
    // The cluster's own list: the client drops a dead master from its pool
    // while the cluster still gives it slots, and PING must reach it to fail.
    const masters = await within(currentMasters(redis), 'CLUSTER SLOTS');
    if (masters.length === 0) throw new Error('no master known');
    await Promise.all(
      masters.map(async (node) => {
        const pong = await within(node.ping(), `master ${node.options.host}:${node.options.port}`);
        if (pong !== 'PONG') throw new Error(`unexpected PING answer: ${pong}`);
      }),
    );
    return;
  }
  const pong = await within(redis.ping(), 'Redis');
  if (pong !== 'PONG') throw new Error(`unexpected PING answer: ${pong}`);
  // A single-node client on a Cluster node answers PING yet gets MOVED for most keys.
  const info = String(await within(redis.info('cluster'), 'INFO cluster'));
  if (/cluster_enabled:1/.test(info)) throw new Error('Redis is a Cluster node: set REDIS_CLUSTER_NODES instead of REDIS_URL');
}

/** A Cluster's masters as the cluster names them now; the client's own list is refreshed only every few seconds and may predate a failover. */
async function currentMasters(redis: Cluster): Promise<Redis[]> {
  await new Promise<void>((resolve, reject) => redis.refreshSlotsCache((err) => (err ? reject(err) : resolve())));
  return redis.nodes('master');
}

/** Every node that holds keys: each master of a Cluster, or the one server. */
async function keyNodes(redis: RedisClient): Promise<Redis[]> {
  return redis instanceof Cluster ? currentMasters(redis) : [redis];
}

/** Hands every batch of keys matching `pattern` on one node to `each`, through SCAN. */
async function scanNode(node: Redis, pattern: string, each: (keys: string[]) => Promise<unknown>): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    if (keys.length) await each(keys);
  } while (cursor !== '0');
}

/** Every key matching `pattern`; on a Cluster, from each master. */
export async function keysMatching(redis: RedisClient, pattern: string): Promise<string[]> {
  const found: string[] = [];
  for (const node of await keyNodes(redis)) await scanNode(node, pattern, async (keys) => found.push(...keys));
  return found;
}

/**
 * Deletes every key matching `pattern`. On a Cluster each master is scanned
 * on its own and keys are unlinked one by one: a multi-key DEL across slots
 * is refused there (CROSSSLOT).
 */
export async function deleteByPattern(redis: RedisClient, pattern: string): Promise<number> {
  let deleted = 0;
  for (const node of await keyNodes(redis)) {
    await scanNode(node, pattern, async (keys) => {
      if (redis instanceof Cluster) await node.pipeline(keys.map((key) => ['unlink', key])).exec();
      else await node.unlink(...keys);
      deleted += keys.length;
    });
  }
  return deleted;
}
