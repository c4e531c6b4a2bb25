// Placeholder product images at the address every Product's `image` names.
// The gateway proxies `/images/*` here. SVG can carry script, so the response
// forbids everything a browser could run or fetch from it.
import { Handle } from '@msa/contracts';
import { type CachedSource, methodNotAllowed, notFound, sendCacheable } from '@msa/service-kit';
import { Router } from 'express';
import type { CatalogIndex } from '../domain/catalog-index.js';
import { renderProductPlaceholderSvg } from '../domain/placeholder-svg.js';

export interface ImageRoutesDeps {
  catalog: CachedSource<CatalogIndex>;
  publicBaseUrl: string;
}

export function imageRoutes({ catalog, publicBaseUrl }: ImageRoutesDeps): Router {
  const router = Router();
  router
    .route('/products/:file')
    .get(async (req, res) => {
      const handle = req.params.file.endsWith('.svg') ? req.params.file.slice(0, -'.svg'.length) : '';
      const product = Handle.safeParse(handle).success
        ? (await catalog.get()).value.findProductByHandle(handle, publicBaseUrl)
        : undefined;
      if (!product) {
        throw notFound('product_not_found', `No product image at ${req.path}.`, 'Product images are named <handle>.svg; GET /v1/products lists every handle.');
      }
      res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
      res.setHeader('X-Content-Type-Options', 'nosniff');
      sendCacheable(req, res, renderProductPlaceholderSvg(product.title, product.colors?.[0]), {
        contentType: 'image/svg+xml',
        maxAgeSeconds: 3600,
      });
    })
    .all(methodNotAllowed({ publicBaseUrl }, ['GET']));
  return router;
}
