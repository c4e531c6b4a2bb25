// The catalog as this service needs it: every product, indexed by handle and
// title, fetched from the catalog service and kept in process for a minute so
// a burst of shop requests costs one catalog call.
import type { CallContext, Product } from '@msa/contracts';
import { appError, type Logger } from '@msa/service-kit';
import { createProductIndex, type ProductIndex } from '../domain/product-index.js';

export interface ProductCatalog {
  /** The product index; a stale copy when the catalog is down, else 502 catalog_unavailable. */
  index(ctx: CallContext): Promise<ProductIndex>;
}

export interface ProductCatalogOptions {
  listAllProducts: (ctx: CallContext) => Promise<Product[]>;
  logger: Logger;
  ttlMs?: number;
  now?: () => number;
}

export function createProductCatalog({ listAllProducts, logger, ttlMs = 60_000, now = Date.now }: ProductCatalogOptions): ProductCatalog {
  let cached: { index: ProductIndex; loadedAt: number } | undefined;
  let loading: Promise<ProductIndex> | undefined;

  async function load(ctx: CallContext): Promise<ProductIndex> {
    try {
      const index = createProductIndex(await listAllProducts(ctx));
      cached = { index, loadedAt: now() };
      return index;
    } catch (err) {
      if (cached) {
        logger.warn({ err }, 'catalog unavailable; resolving products against the last copy');
        // Serve the old copy for another period instead of asking a failing catalog on every request.
        cached.loadedAt = now();
        return cached.index;
      }
      logger.warn({ err }, 'catalog unavailable and no copy cached');
      throw appError('catalog_unavailable', 'The catalog is unavailable, so the products cannot be checked.', {
        hint: 'Retry in a minute; with the same Idempotency-Key a retry is safe.',
      });
    }
  }

  return {
    async index(ctx) {
      if (cached && now() - cached.loadedAt < ttlMs) return cached.index;
      // Concurrent misses share one catalog call.
      loading ??= load(ctx).finally(() => {
        loading = undefined;
      });
      return loading;
    },
  };
}
