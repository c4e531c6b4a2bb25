import { createServiceApp, finishServiceApp, type Logger, type Metrics } from '@msa/service-kit';
import { pingRedis, type ReplicationOptions } from '@msa/service-kit/redis';
import type { Express } from 'express';
import type { RedisClient } from '@msa/service-kit';
import type { ProductCatalog } from './catalog/product-catalog.js';
import { countingEnqueueFailures, type IntakeQueue } from './intake/intake-queue.js';
import { quoteRoutes } from './routes/quote-routes.js';
import { shopRequestRoutes } from './routes/shop-request-routes.js';
import type { QuoteQuotas } from './store/quote-quotas.js';
import type { QuoteStore } from './store/quote-store.js';
import type { ShopRequestQuotas } from './store/shop-request-quotas.js';
import type { PersonalRequestDeps } from './privacy/personal-requests.js';
import { privacyRoutes } from './privacy/privacy-routes.js';
import { createAcceptanceBarrier, NO_BARRIER } from './store/replication.js';
import type { ShopRequestStore } from './store/shop-request-store.js';

type Counter = ReturnType<Metrics['counter']>;

export interface ShopRequestCounters {
  /** Labels: mode (live, sandbox), outcome (created, invalid, rate_limited, unavailable). */
  requests: Counter;
  enqueueFailures: Counter;
  /** Labels: outcome (created, reused, invalid, rate_limited, unavailable). */
  quotes: Counter;
  /** Shop requests answered 503 by the acceptance barrier (store/replication.ts). */
  replicationRefusals: Counter;
}

export interface AppDeps {
  logger: Logger;
  publicBaseUrl: string;
  internalAuthSecret: string;
  /** For idempotency records and /readyz. */
  redis: RedisClient;
  keyPrefix: string;
  store: ShopRequestStore;
  quotas: ShopRequestQuotas;
  quotes: QuoteStore;
  quoteQuotas: QuoteQuotas;
  /** QUOTE_LIFETIME_SECONDS. */
  quoteLifetimeSeconds: number;
  catalog: ProductCatalog;
  intake: Pick<IntakeQueue, 'enqueue'>;
  metrics: Metrics;
  counters: ShopRequestCounters;
  idempotencyLockSeconds?: number;
  /** IPV6_LIMIT_PREFIX: an anonymous IPv6 caller counts (and owns) by this prefix. */
  ipv6LimitPrefix?: number;
  /** REDIS_WAIT_REPLICAS and REDIS_WAIT_TIMEOUT_MS: replicas that hold a shop request's writes before its 201; off when absent or 0. */
  replication?: ReplicationOptions;
  /** The internal routes of the rights of access and erasure; absent, they are not served. */
  privacy?: PersonalRequestDeps;
  now?: () => Date;
}

/** The counters this service adds to the kit's HTTP metrics; create them once per registry. */
export function createShopRequestCounters(metrics: Metrics): ShopRequestCounters {
  return {
    quotes: metrics.counter('quotes_total', 'Quotes by outcome (created, reused: the same quote already stored, invalid, rate_limited, unavailable)', ['outcome']),
    requests: metrics.counter('shop_requests_total', 'Shop requests by mode (live, sandbox) and outcome', ['mode', 'outcome']),
    enqueueFailures: metrics.counter(
      'shop_request_enqueue_failures_total',
      'Live shop requests stored but not put on the intake queue (left to the reconciler)',
    ),
    replicationRefusals: metrics.counter(
      'shop_request_replication_refusals_total',
      'Shop requests answered 503 because fewer than REDIS_WAIT_REPLICAS replicas acknowledged their writes in time',
    ),
  };
}

export function createApp(deps: AppDeps): Express {
  const { logger, publicBaseUrl, internalAuthSecret, redis, metrics } = deps;
  const app = createServiceApp({
    service: 'requests',
    logger,
    publicBaseUrl,
    internalAuthSecret,
    metrics,
    ready: () => pingRedis(redis),
  });
  const barrier = deps.replication
    ? createAcceptanceBarrier(redis, deps.keyPrefix, { ...deps.replication, onRefused: () => deps.counters.replicationRefusals.inc() })
    : NO_BARRIER;
  // Routers carry their paths from the operation table in contracts.
  app.use(shopRequestRoutes({ ...deps, barrier, intake: countingEnqueueFailures(deps.intake, deps.counters.enqueueFailures) }));
  app.use(quoteRoutes(deps));
  if (deps.privacy) app.use(privacyRoutes({ ...deps.privacy, publicBaseUrl }));
  return finishServiceApp(app, { logger, publicBaseUrl });
}
