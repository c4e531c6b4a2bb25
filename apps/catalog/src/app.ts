import { type CachedSource, createServiceApp, finishServiceApp, type Logger, type Metrics } from '@msa/service-kit';
import type { Express } from 'express';
import type { CatalogIndex } from './domain/catalog-index.js';
import { imageRoutes } from './routes/image-routes.js';
import { pricingRoutes } from './routes/pricing-routes.js';
import { productRoutes } from './routes/product-routes.js';

export interface AppDeps {
  catalog: CachedSource<CatalogIndex>;
  logger: Logger;
  publicBaseUrl: string;
  internalAuthSecret: string;
  metrics?: Metrics;
}

export function createApp({ catalog, logger, publicBaseUrl, internalAuthSecret, metrics }: AppDeps): Express {
  const app = createServiceApp({
    service: 'catalog',
    logger,
    publicBaseUrl,
    internalAuthSecret,
    metrics,
    // Ready once a copy of the catalog is in memory: without one every
    // catalog route would answer 502, and Redis is not used here.
    ready: () => catalog.get(),
  });
  const deps = { catalog, publicBaseUrl };
  app.use('/v1/products', productRoutes(deps));
  app.use('/v1/pricing', pricingRoutes(deps));
  app.use('/images', imageRoutes(deps));
  return finishServiceApp(app, { logger, publicBaseUrl });
}
