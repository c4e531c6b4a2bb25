// Placeholder pictures at the addresses the shop list names under
// `/images/shops/`. The gateway proxies `/images/shops/*` here. SVG can carry
// script, so the response forbids everything a browser could run or fetch.
import { appError, type CachedSource, methodNotAllowed, sendCacheable } from '@msa/service-kit';
import { Router } from 'express';
import { renderShopPlaceholderSvg } from '../domain/placeholder-svg.js';
import type { ShopDirectory } from '../domain/shop-directory.js';

export interface ImageRoutesDeps {
  shops: CachedSource<ShopDirectory>;
  publicBaseUrl: string;
}

export function imageRoutes({ shops, publicBaseUrl }: ImageRoutesDeps): Router {
  const router = Router();
  router
    .route('/shops/:file')
    .get(async (req, res) => {
      const path = `/images/shops/${req.params.file}`;
      const shop = req.params.file.endsWith('.svg') ? (await shops.get()).value.findShopByImagePath(path) : undefined;
      if (!shop) {
        throw appError('not_found', `No shop image at ${path}.`, { hint: 'GET /v1/shops names each shop image.' });
      }
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      res.setHeader('X-Content-Type-Options', 'nosniff');
      sendCacheable(req, res, renderShopPlaceholderSvg(shop.name, shop.category), {
        contentType: 'image/svg+xml',
        maxAgeSeconds: 3600,
      });
    })
    .all(methodNotAllowed({ publicBaseUrl }, ['GET']));
  return router;
}
