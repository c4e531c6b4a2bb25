import { createServiceApp, finishServiceApp, type Logger, type Metrics } from '@msa/service-kit';
import { pingRedis } from '@msa/service-kit/redis';
import type { Express } from 'express';
import type { RedisClient } from '@msa/service-kit';
import type { ProductCatalog } from './catalog/product-catalog.js';
import type { IntakeQueue } from './intake/intake-queue.js';
import type { ShopRequestCounters } from './domain/create-shop-request.js';
import { shopRequestRoutes } from './routes/shop-request-routes.js';
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
  catalog: ProductCatalog;
  intake: Pick<IntakeQueue, 'enqueue'>;
  metrics: Metrics;
  counters: ShopRequestCounters;
  idempotencyLockSeconds?: number;
  now?: () => Date;
}

/** The counters this service adds to the kit's HTTP metrics; create them once per registry. */
export function createShopRequestCounters(metrics: Metrics): ShopRequestCounters {
  return {
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
  return finishServiceApp(app, { logger, publicBaseUrl });
}
