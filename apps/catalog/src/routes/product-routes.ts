import { ProductHandleParams, ProductListQuery } from '@msa/contracts';
import { type CachedSource, methodNotAllowed, notFound, parseOr, sendPrepared, type Snapshot } from '@msa/service-kit';
import { type Request, type Response, Router } from 'express';
import type { CatalogIndex } from '../domain/catalog-index.js';
import { productListJson } from '../domain/product-list-json.js';
import { linkBase } from '../domain/product-view.js';
import { createPageCache } from './page-cache.js';

export interface ProductRoutesDeps {
  catalog: CachedSource<CatalogIndex>;
  publicBaseUrl: string;
}

export function productRoutes({ catalog, publicBaseUrl }: ProductRoutesDeps): Router {
  const router = Router();
  const env = { publicBaseUrl };
  const pages = createPageCache<CatalogIndex>();

  function sendList(req: Request, res: Response, snapshot: Snapshot<CatalogIndex>): void {
    // Keyed by the raw query: the same text always parses to the same
    // query, so a hit skips the parse too, and a query that fails to parse
    // throws before anything is kept.
    const at = req.originalUrl.indexOf('?');
    const key = `${req.ctx.sandbox ? 's' : 'l'}${at === -1 ? '' : req.originalUrl.slice(at)}`;
    const page = pages.get(snapshot, key, () => {
      const query = parseOr(ProductListQuery, req.query, 'invalid_request', 'The query parameters are invalid.');
      const found = snapshot.value.searchProducts(query, linkBase(publicBaseUrl, req.ctx.sandbox));
      return productListJson({
        generated_at: snapshot.generatedAt.toISOString(),
        total: found.total,
        limit: query.limit,
        offset: query.offset,
        products: found.products,
      });
    });
    sendPrepared(req, res, page);
  }

  router
    .route('/')
    .get((req, res) => {
      // A fresh copy answers in this tick, without a promise (a sync throw reaches the error handler too).
      const snapshot = catalog.fresh?.();
      if (snapshot) return sendList(req, res, snapshot);
      return catalog.get().then((loaded) => sendList(req, res, loaded));
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
      const page = pages.get(snapshot, `${req.ctx.sandbox ? 's' : 'l'}/${handle}`, () => product);
      sendPrepared(req, res, page);
    })
    .all(methodNotAllowed(env, ['GET']));

  return router;
}
