import { type CachedSource, createServiceApp, finishServiceApp, type Logger, type Metrics } from '@msa/service-kit';
import type { Express } from 'express';
import type { ShopDirectory } from './domain/shop-directory.js';
import { imageRoutes } from './routes/image-routes.js';
import { shopRoutes } from './routes/shop-routes.js';

export interface AppDeps {
  shops: CachedSource<ShopDirectory>;
  logger: Logger;
  publicBaseUrl: string;
  internalAuthSecret: string;
  metrics?: Metrics;
}

export function createApp({ shops, logger, publicBaseUrl, internalAuthSecret, metrics }: AppDeps): Express {
  const app = createServiceApp({
    service: 'shops',
    logger,
    publicBaseUrl,
    internalAuthSecret,
    metrics,
    // Ready once a copy of the shop list is in memory: without one
    // GET /v1/shops would answer 502, and Redis is not used here.
    ready: () => shops.get(),
  });
  const deps = { shops, publicBaseUrl };
  app.use('/v1/shops', shopRoutes(deps));
  app.use('/images', imageRoutes(deps));
  return finishServiceApp(app, { logger, publicBaseUrl });
}
