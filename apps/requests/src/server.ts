import { createCatalogClient } from '@msa/contracts';
import {
  createInternalSigner,
  createLogger,
  createMetrics,
  redisTopologyOf,
  listenWithAdmin,
  type Logger,
  type RedisClient,
  type RunningService,
} from '@msa/service-kit';
import { createRedis } from '@msa/service-kit/redis';
import { createApp, createShopRequestCounters } from './app.js';
import { createProductCatalog, type ProductCatalog } from './catalog/product-catalog.js';
import type { RequestsConfig } from './config.js';
import { createIntakeQueue } from './intake/intake-queue.js';
import { createReconciler } from './intake/reconciler.js';
import { createQuoteQuotas } from './store/quote-quotas.js';
import { createQuoteStore } from './store/quote-store.js';
import { createShopRequestQuotas } from './store/shop-request-quotas.js';
import { allShopRequestIds, createShopRequestStore } from './store/shop-request-store.js';
import { createIntakeCopies } from './privacy/store/intake-copies.js';
import { createRequestIndex } from './privacy/store/request-index.js';

const CATALOG_TIMEOUT_MS = 5_000;

export interface ServiceDeps {
  logger?: Logger;
}

async function quit(redis: RedisClient): Promise<void> {
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** The shop requests, quotes, their daily quotas and the privacy index, all under REDIS_KEY_PREFIX. */
function createStores(config: RequestsConfig, redis: RedisClient) {
  const prefix = config.REDIS_KEY_PREFIX;
  const index = createRequestIndex(redis, prefix, config.INTERNAL_AUTH_SECRET);
  return {
    index,
    store: createShopRequestStore(redis, prefix, {
      index,
      liveRetentionSeconds: config.SHOP_REQUEST_LIVE_RETENTION_DAYS * 86_400,
      maxStoredBytes: config.SHOP_REQUEST_MAX_STORED_BYTES,
    }),
    quotas: createShopRequestQuotas(redis, prefix, {
      sandboxPerAddress: config.SANDBOX_REQUESTS_PER_ADDRESS_PER_DAY,
      livePerDomain: config.LIVE_REQUESTS_PER_DOMAIN_PER_DAY,
    }),
    quotes: createQuoteStore(redis, prefix),
    quoteQuotas: createQuoteQuotas(redis, prefix, {
      perPrincipal: config.QUOTES_PER_PRINCIPAL_PER_DAY,
      perAddress: config.QUOTES_PER_ADDRESS_PER_DAY,
    }),
  };
}

/** The catalog's products, read over its internal client and cached. */
function createCatalog(config: RequestsConfig, logger: Logger): ProductCatalog {
  const catalogClient = createCatalogClient({
    baseUrl: config.CATALOG_URL,
    sign: createInternalSigner(config.INTERNAL_AUTH_SECRET),
    // Well inside the gateway's patience and the idempotency wait of a duplicate POST.
    timeoutMs: CATALOG_TIMEOUT_MS,
  });
  return createProductCatalog({ listAllProducts: (ctx) => catalogClient.listAllProducts(ctx), logger });
}

/** Builds the requests service, starts its reconciler and listens on REQUESTS_PORT and REQUESTS_ADMIN_PORT (0 = a free port, for tests). */
export async function startService(config: RequestsConfig, deps: ServiceDeps = {}): Promise<RunningService> {
  const logger = deps.logger ?? createLogger({ service: 'requests', level: config.LOG_LEVEL });
  const redis = createRedis(redisTopologyOf(config), 'api', { logger, label: 'store' });
  // BullMQ keeps its own connection; sharing one would let queue traffic and
  // request traffic stall each other, and the queue never closes it.
  const queueRedis = createRedis(redisTopologyOf(config), 'api', { logger, label: 'queue' });

  const metrics = createMetrics('requests');
  const counters = createShopRequestCounters(metrics);
  const replication = { replicas: config.REDIS_WAIT_REPLICAS, timeoutMs: config.REDIS_WAIT_TIMEOUT_MS };
  const { index, store, quotas, quotes, quoteQuotas } = createStores(config, redis);
  const intake = createIntakeQueue({
    connection: queueRedis,
    prefix: config.QUEUE_PREFIX,
    attempts: config.INTAKE_ATTEMPTS,
    backoffMs: config.INTAKE_BACKOFF_MS,
    logger,
    replication,
  });
  const app = createApp({
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    internalAuthSecret: config.INTERNAL_AUTH_SECRET,
    redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    store,
    quotas,
    quotes,
    quoteQuotas,
    quoteLifetimeSeconds: config.QUOTE_LIFETIME_SECONDS,
    idempotencyLockSeconds: config.IDEMPOTENCY_LOCK_SECONDS,
    ipv6LimitPrefix: config.IPV6_LIMIT_PREFIX,
    replication,
    catalog: createCatalog(config, logger),
    intake,
    metrics,
    counters,
    privacy: {
      store,
      index,
      intakeCopies: createIntakeCopies(redis, config.REDIS_KEY_PREFIX),
      dropIntakeJob: (id) => intake.drop(id),
      allRequestIds: () => allShopRequestIds(redis, config.REDIS_KEY_PREFIX),
    },
  });
  const reconciler = createReconciler({
    store,
    intake,
    quotas,
    logger,
    intervalMs: config.RECONCILE_INTERVAL_MS,
    minAgeMs: config.RECONCILE_MIN_AGE_MS,
    onEnqueueFailure: () => counters.enqueueFailures.inc(),
  });

  const ports = await listenWithAdmin(app, metrics, {
    port: config.REQUESTS_PORT,
    adminPort: config.REQUESTS_ADMIN_PORT,
    host: config.BIND_ADDRESS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
  });
  reconciler.start();
  return {
    url: ports.main.url,
    port: ports.main.port,
    adminUrl: ports.admin.url,
    async close() {
      await ports.close();
      await reconciler.stop();
      await intake.close().catch((err: unknown) => logger.warn({ err }, 'intake queue did not close cleanly'));
      await quit(queueRedis);
      await quit(redis);
    },
  };
}
