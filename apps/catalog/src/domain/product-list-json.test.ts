import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CatalogFeed } from '../source/catalog-entry.js';
import { DEFAULT_CATALOG_FILE } from '../source/catalog-source.js';
import { createCatalogIndex } from './catalog-index.js';
import { productListJson } from './product-list-json.js';

const index = createCatalogIndex(CatalogFeed.parse(JSON.parse(readFileSync(DEFAULT_CATALOG_FILE, 'utf8'))));
const base = 'https://api.example.com';

describe('productListJson', () => {
  it.each([
    ['every product', { offset: 0, limit: 250 }],
    ['a search', { q: 'hoodie', offset: 0, limit: 20 }],
    ['a later page', { q: 'bio', offset: 3, limit: 2 }],
    ['no match', { q: 'xylophon', offset: 0, limit: 20 }],
  ])('writes the bytes JSON.stringify writes for %s, twice in a row', (_name, filter) => {
    const found = index.searchProducts(filter, base);
    const list = { generated_at: '2026-11-23T07:00:00.000Z', total: found.total, limit: filter.limit, offset: filter.offset, products: found.products };
    expect(productListJson(list)).toBe(JSON.stringify(list));
    // The second call reads the kept product texts.
    expect(productListJson(list)).toBe(JSON.stringify(list));
  });

  it('escapes what JSON.stringify escapes in the time and in product texts', () => {
    const product = { ...index.allProducts(base)[0]!, title: 'Quote " backslash \\ line\nbreak \u2028' };
    const list = { generated_at: 'a"b', total: 1, limit: 1, offset: 0, products: [product] };
    expect(productListJson(list)).toBe(JSON.stringify(list));
  });
});
