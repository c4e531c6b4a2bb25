import { createServiceApp, finishServiceApp, type Logger, type Metrics } from '@msa/service-kit';
import { pingRedis } from '@msa/service-kit/redis';
import type { Express } from 'express';
import type { RedisClient } from '@msa/service-kit';
import type { ProductCatalog } from './catalog/product-catalog.js';
import type { IntakeQueue } from './intake/intake-queue.js';
import type { ShopRequestCounters } from './domain/create-shop-request.js';
import { quoteRoutes } from './routes/quote-routes.js';
import { shopRequestRoutes } from './routes/shop-request-routes.js';
import type { QuoteStore } from './store/quote-store.js';
import type { ShopRequestQuotas } from './store/shop-request-quotas.js';
import type { ShopRequestStore } from './store/shop-request-store.js';

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
  /** QUOTE_LIFETIME_SECONDS. */
  quoteLifetimeSeconds: number;
  catalog: ProductCatalog;
  intake: Pick<IntakeQueue, 'enqueue'>;
  metrics: Metrics;
  counters: ShopRequestCounters;
  idempotencyLockSeconds?: number;
  /** IPV6_LIMIT_PREFIX: an anonymous IPv6 caller counts (and owns) by this prefix. */
  ipv6LimitPrefix?: number;
  now?: () => Date;
}

/** The counters this service adds to the kit's HTTP metrics; create them once per registry. */
export function createShopRequestCounters(metrics: Metrics): ShopRequestCounters {
  return {
    quotes: metrics.counter('quotes_total', 'Quotes by outcome (created, invalid, unavailable)', ['outcome']),
    requests: metrics.counter('shop_requests_total', 'Shop requests by mode (live, sandbox) and outcome', ['mode', 'outcome']),
    enqueueFailures: metrics.counter(
      'shop_request_enqueue_failures_total',
      'Live shop requests stored but not put on the intake queue (left to the reconciler)',
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
  app.use('/v1/shop-requests', shopRequestRoutes(deps));
  app.use('/v1/quotes', quoteRoutes({ ...deps, quoteCounter: deps.counters.quotes }));
  return finishServiceApp(app, { logger, publicBaseUrl });
}
