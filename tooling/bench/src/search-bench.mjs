// Budget 3: catalog search over 10,000 products, in process, with the
// catalog's own index. Each timed answer is what the products route does
// besides HTTP: parse the query, search, serialize the page.
import { performance } from 'node:perf_hooks';
import { CatalogEntry, createCatalogIndex, productListJson } from '@msa/catalog';
import { ProductListQuery } from '@msa/contracts';
import { buildCatalogEntries, loadEmbeddedProducts, SEARCH_QUERIES } from './catalog-fixture.mjs';
import { summarize } from './stats.mjs';

const BASE = 'http://localhost:8080';

export function runSearchBench({ productsFile, entryCount = 10_000, searches = 5_000, warmup = 500 }) {
  const products = loadEmbeddedProducts(productsFile);
  // Parsed like a feed would be, so the entries are ones the catalog accepts.
  const entries = buildCatalogEntries(products, entryCount).map((e) => CatalogEntry.parse(e));

  const buildStart = performance.now();
  const index = createCatalogIndex(entries);
  index.allProducts(BASE);
  const buildMs = performance.now() - buildStart;

  const answer = (raw) => {
    const query = ProductListQuery.parse(raw);
    const t0 = performance.now();
    const page = index.searchProducts(query, BASE);
    const searchMs = performance.now() - t0;
    // The products route's own serializer.
    const body = productListJson({ generated_at: new Date().toISOString(), total: page.total, limit: query.limit, offset: query.offset, products: page.products });
    return { searchMs, bytes: body.length, total: page.total };
  };

  for (let i = 0; i < warmup; i++) answer(SEARCH_QUERIES[i % SEARCH_QUERIES.length]);

  const answerMs = [];
  const searchMs = [];
  let hits = 0;
  for (let i = 0; i < searches; i++) {
    const raw = SEARCH_QUERIES[i % SEARCH_QUERIES.length];
    const t0 = performance.now();
    const result = answer(raw);
    answerMs.push(performance.now() - t0);
    searchMs.push(result.searchMs);
    hits += result.total;
  }

  return {
    entries: entries.length,
    queries: SEARCH_QUERIES.length,
    searches,
    buildMs,
    meanHits: hits / searches,
    answer: summarize(answerMs),
    search: summarize(searchMs),
  };
}
