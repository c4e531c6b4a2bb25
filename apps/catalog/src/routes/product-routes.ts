import { ProductHandleParams, ProductListQuery, type ProductList } from '@msa/contracts';
import { type CachedSource, methodNotAllowed, notFound, parseOr, sendCacheable } from '@msa/service-kit';
import { Router } from 'express';
import type { CatalogIndex } from '../domain/catalog-index.js';
import { linkBase } from '../domain/product-view.js';

export interface ProductRoutesDeps {
  catalog: CachedSource<CatalogIndex>;
  publicBaseUrl: string;
}

export function productRoutes({ catalog, publicBaseUrl }: ProductRoutesDeps): Router {
  const router = Router();
  const env = { publicBaseUrl };

  router
    .route('/')
    .get(async (req, res) => {
      const query = parseOr(ProductListQuery, req.query, 'invalid_request', 'The query parameters are invalid.');
      const snapshot = await catalog.get();
      const page = snapshot.value.searchProducts(query, linkBase(publicBaseUrl, req.ctx.sandbox));
      const body: ProductList = {
        generated_at: snapshot.generatedAt.toISOString(),
        total: page.total,
        limit: query.limit,
        offset: query.offset,
        products: page.products,
      };
      sendCacheable(req, res, body);
    })
    .all(methodNotAllowed(env, ['GET']));

  router
    .route('/:handle')
    .get(async (req, res) => {
      const { handle } = parseOr(ProductHandleParams, req.params, 'invalid_request', 'The product handle is invalid.');
      const snapshot = await catalog.get();
      const product = snapshot.value.findProductByHandle(handle, linkBase(publicBaseUrl, req.ctx.sandbox));
      if (!product) {
        throw notFound('product_not_found', `No product with handle '${handle}'.`, 'GET /v1/products lists every handle.');
      }
      sendCacheable(req, res, product);
    })
    .all(methodNotAllowed(env, ['GET']));

  return router;
}
