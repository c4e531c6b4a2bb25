import { ShopListQuery, type ShopList } from '@msa/contracts';
import { type CachedSource, methodNotAllowed, parseOr, sendCacheable } from '@msa/service-kit';
import { Router } from 'express';
import type { ShopDirectory } from '../domain/shop-directory.js';
import { linkBase } from '../domain/shop-view.js';

export interface ShopRoutesDeps {
  shops: CachedSource<ShopDirectory>;
  publicBaseUrl: string;
}

export function shopRoutes({ shops, publicBaseUrl }: ShopRoutesDeps): Router {
  const router = Router();
  router
    .route('/')
    .get(async (req, res) => {
      const { category } = parseOr(ShopListQuery, req.query, 'invalid_request', 'The query parameters are invalid.');
      const snapshot = await shops.get();
      const list = snapshot.value.listShops(category, linkBase(publicBaseUrl, req.ctx.sandbox));
      const body: ShopList = { generated_at: snapshot.generatedAt.toISOString(), count: list.length, shops: list };
      sendCacheable(req, res, body);
    })
    .all(methodNotAllowed({ publicBaseUrl }, ['GET']));
  return router;
}
