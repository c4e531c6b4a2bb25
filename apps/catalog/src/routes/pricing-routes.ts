import { type CachedSource, methodNotAllowed, sendCacheable } from '@msa/service-kit';
import { Router } from 'express';
import type { CatalogIndex } from '../domain/catalog-index.js';
import { buildPricing } from '../domain/pricing.js';
import { linkBase } from '../domain/product-view.js';

export interface PricingRoutesDeps {
  catalog: CachedSource<CatalogIndex>;
  publicBaseUrl: string;
}

export function pricingRoutes({ catalog, publicBaseUrl }: PricingRoutesDeps): Router {
  const router = Router();
  router
    .route('/')
    .get(async (req, res) => {
      const snapshot = await catalog.get();
      sendCacheable(req, res, buildPricing(snapshot.value, linkBase(publicBaseUrl, req.ctx.sandbox)));
    })
    .all(methodNotAllowed({ publicBaseUrl }, ['GET']));
  return router;
}
