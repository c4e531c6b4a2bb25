// The catalog as loaded from its source, prepared once per new content so a
// search is a scan over precomputed folded strings (no normalisation per
// request), and the wire products are built once per link base. Matches are
// ranked by relevance (search-score.ts) before paging.
import type { Product } from '@msa/contracts';
import type { CatalogEntry } from '../source/catalog-entry.js';
import { foldText, queryTerms } from './fold-text.js';
import { toProduct } from './product-view.js';
import { MAX_TERM_SCORE, scoreMatch, searchFields } from './search-score.js';

export interface ProductFilter {
  q?: string;
  /** A product type or a tag, compared whole and folded ("t-shirt", "bio", "schürze"). */
  type?: string;
  decoration?: 'dtf' | 'stick';
  limit: number;
  offset: number;
}

export interface ProductPage {
  /** Matches before paging. */
  total: number;
  products: Product[];
}

export interface CatalogIndex {
  readonly entries: readonly CatalogEntry[];
  findProductByHandle(handle: string, base: string): Product | undefined;
  searchProducts(filter: ProductFilter, base: string): ProductPage;
  /** Every product in source order, as the wire shape for `base`. */
  allProducts(base: string): readonly Product[];
}

export function createCatalogIndex(entries: readonly CatalogEntry[]): CatalogIndex {
  const searchTexts = entries.map(searchFields);
  const texts = searchTexts.map((t) => t.text);
  const ends = searchTexts.map((t) => t.ends);
  const facets = entries.map((e) => new Set([e.type ?? '', ...(e.tags ?? [])].map(foldText)));
  const positions = new Map(entries.map((e, i) => [e.handle, i]));
  const viewsByBase = new Map<string, Product[]>();

  function allProducts(base: string): Product[] {
    let views = viewsByBase.get(base);
    if (!views) {
      views = entries.map((e) => toProduct(e, base));
      viewsByBase.set(base, views);
    }
    return views;
  }

  return {
    entries,
    allProducts,
    findProductByHandle(handle, base) {
      const i = positions.get(handle);
      return i === undefined ? undefined : allProducts(base)[i];
    },
    searchProducts(filter, base) {
      const terms = queryTerms(filter.q);
      const type = filter.type?.trim() ? foldText(filter.type.trim()) : undefined;
      const views = allProducts(base);
      // One bucket per possible score, filled in catalog order: reading them
      // from the highest down is a stable sort in one pass, and equal scores
      // keep catalog order. Without terms every match lands in bucket 0.
      const buckets: number[][] = Array.from({ length: terms.length * MAX_TERM_SCORE + 1 }, () => []);
      let total = 0;
      for (let i = 0; i < entries.length; i++) {
        if (filter.decoration && !entries[i]!.decoration?.includes(filter.decoration)) continue;
        if (type !== undefined && !facets[i]!.has(type)) continue;
        const score = terms.length === 0 ? 0 : scoreMatch(texts[i]!, ends[i]!, terms);
        if (score < 0) continue;
        buckets[score]!.push(i);
        total++;
      }
      const page: Product[] = [];
      let skip = filter.offset;
      for (let s = buckets.length - 1; s >= 0 && page.length < filter.limit; s--) {
        const bucket = buckets[s]!;
        if (skip >= bucket.length) {
          skip -= bucket.length;
          continue;
        }
        for (let k = skip; k < bucket.length && page.length < filter.limit; k++) page.push(views[bucket[k]!]!);
        skip = 0;
      }
      return { total, products: page };
    },
  };
}
