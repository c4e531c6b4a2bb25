import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CatalogFeed, type CatalogEntry } from '../source/catalog-entry.js';
import { DEFAULT_CATALOG_FILE } from '../source/catalog-source.js';
import { createCatalogIndex, type ProductFilter } from './catalog-index.js';
import { queryTerms } from './fold-text.js';
import { scoreMatch, searchFields } from './search-score.js';

const BASE = 'https://api.example.test';

function buildEntry(overrides: Partial<CatalogEntry> & Pick<CatalogEntry, 'handle'>): CatalogEntry {
  return {
    title: overrides.handle,
    type: 'T-Shirt',
    available: true,
    tags: [],
    decoration: ['dtf'],
    description: '',
    ...overrides,
  };
}

function buildFilter(overrides: Partial<ProductFilter> = {}): ProductFilter {
  return { limit: 50, offset: 0, ...overrides };
}

const entries: CatalogEntry[] = [
  buildEntry({ handle: 'bistroschurze', title: 'Bistroschürze', type: 'Schürze', tags: ['gastro', 'cafe'], decoration: ['dtf', 'stick'] }),
  buildEntry({ handle: 'bio-shirt', title: 'Bio T-Shirt Unisex', tags: ['bio', 'unisex'], description: 'Aus Bio-Baumwolle, GOTS.' }),
  buildEntry({ handle: 'kinder-shirt', title: 'Bio T-Shirt Kinder', tags: ['bio', 'kinder'] }),
  buildEntry({ handle: 'fussball-trikot', title: 'Fußballtrikot', type: 'Trikot', tags: ['sport'], description: 'Für das Café-Team.' }),
  buildEntry({ handle: 'hoodie', title: 'Hoodie', type: 'Hoodie', tags: ['Winter'], decoration: ['dtf', 'stick'] }),
];
const index = createCatalogIndex(entries);
const handles = (filter: Partial<ProductFilter>) =>
  index.searchProducts(buildFilter(filter), BASE).products.map((p) => p.handle);

describe('searchProducts', () => {
  it('answers every product in source order without a filter', () => {
    expect(handles({})).toEqual(['bistroschurze', 'bio-shirt', 'kinder-shirt', 'fussball-trikot', 'hoodie']);
  });

  it('matches regardless of accents and case, in both directions', () => {
    expect(handles({ q: 'SCHURZE' })).toEqual(['bistroschurze']);
    expect(handles({ q: 'schürze' })).toEqual(['bistroschurze']);
    expect(handles({ q: 'schuerze' })).toEqual(['bistroschurze']);
    expect(handles({ q: 'café' })).toEqual(['bistroschurze', 'fussball-trikot']);
  });

  it('matches ß written as ss and ß in the query', () => {
    expect(handles({ q: 'fussball' })).toEqual(['fussball-trikot']);
    expect(handles({ q: 'Fußball' })).toEqual(['fussball-trikot']);
  });

  it('needs every term to match somewhere in title, type, tags or description', () => {
    expect(handles({ q: 'bio kinder' })).toEqual(['kinder-shirt']);
    expect(handles({ q: 'shirt gots' })).toEqual(['bio-shirt']);
    expect(handles({ q: 'bio hoodie' })).toEqual([]);
  });

  it('finds "T-Shirt" typed as tshirt', () => {
    expect(handles({ q: 'tshirt' })).toEqual(['bio-shirt', 'kinder-shirt']);
  });

  it('filters by type or tag, compared whole and case-insensitively', () => {
    expect(handles({ type: 't-shirt' })).toEqual(['bio-shirt', 'kinder-shirt']);
    expect(handles({ type: 'Schurze' })).toEqual(['bistroschurze']);
    expect(handles({ type: 'winter' })).toEqual(['hoodie']);
    expect(handles({ type: 'shirt' })).toEqual([]);
  });

  it('filters by decoration technique', () => {
    expect(handles({ decoration: 'stick' })).toEqual(['bistroschurze', 'hoodie']);
  });

  it('combines the filters', () => {
    expect(handles({ q: 'bio', type: 'kinder', decoration: 'dtf' })).toEqual(['kinder-shirt']);
  });

  it('pages after filtering and counts every match in total', () => {
    const page = index.searchProducts(buildFilter({ q: 'shirt', limit: 1, offset: 1 }), BASE);

    expect(page.total).toBe(2);
    expect(page.products.map((p) => p.handle)).toEqual(['kinder-shirt']);
  });

  it('answers an empty page past the end with the full total', () => {
    const page = index.searchProducts(buildFilter({ offset: 10 }), BASE);

    expect(page).toEqual({ total: 5, products: [] });
  });
});

describe('searchProducts ranking', () => {
  const ranked = createCatalogIndex([
    buildEntry({ handle: 'longsleeve', title: 'Longsleeve', type: 'Longsleeve', description: 'Passt unter jeden Hoodie.' }),
    buildEntry({ handle: 'tagged', title: 'Sweatjacke', type: 'Jacke', tags: ['hoodie'] }),
    buildEntry({ handle: 'typed', title: 'Kapuzenpullover', type: 'Hoodie' }),
    buildEntry({ handle: 'zip-hoodie', title: 'Zip-Hoodie', type: 'Hoodie' }),
    buildEntry({ handle: 'hoodies', title: 'Hoodies im Set', type: 'Set' }),
    buildEntry({ handle: 'hoodie-kinder', title: 'Hoodie Kinder', type: 'Hoodie' }),
  ]);
  const rankedHandles = (filter: Partial<ProductFilter>) =>
    ranked.searchProducts(buildFilter(filter), BASE).products.map((p) => p.handle);

  it('puts title matches first, whole words before prefixes, then type, tags and description', () => {
    expect(rankedHandles({ q: 'hoodie' })).toEqual(['zip-hoodie', 'hoodie-kinder', 'hoodies', 'typed', 'tagged', 'longsleeve']);
  });

  it('keeps catalog order between equally good matches', () => {
    const ties = createCatalogIndex([
      buildEntry({ handle: 'zeta', title: 'Hoodie Zeta' }),
      buildEntry({ handle: 'beta', title: 'Beta Hoodie' }),
      buildEntry({ handle: 'alpha', title: 'Alpha Hoodie Kinder' }),
    ]);

    const page = ties.searchProducts(buildFilter({ q: 'hoodie' }), BASE);

    expect(page.products.map((p) => p.handle)).toEqual(['zeta', 'beta', 'alpha']);
  });

  it('still finds a term that only a description holds', () => {
    expect(rankedHandles({ q: 'passt' })).toEqual(['longsleeve']);
  });

  it('pages after ranking and counts every match in total', () => {
    const page = ranked.searchProducts(buildFilter({ q: 'hoodie', limit: 2, offset: 2 }), BASE);

    expect(page.total).toBe(6);
    expect(page.products.map((p) => p.handle)).toEqual(['hoodies', 'typed']);
  });

  it('keeps catalog order without a query', () => {
    expect(rankedHandles({ limit: 3 })).toEqual(['longsleeve', 'tagged', 'typed']);
  });
});

describe('findProductByHandle', () => {
  it('answers the wire product with derived url, currency and image', () => {
    const product = index.findProductByHandle('hoodie', BASE);

    expect(product).toMatchObject({
      handle: 'hoodie',
      url: `${BASE}/v1/products/hoodie`,
      currency: 'EUR',
      image: `${BASE}/images/products/hoodie.svg`,
    });
  });

  it('keeps an image URL the source names', () => {
    const own = createCatalogIndex([buildEntry({ handle: 'cap', image: 'https://cdn.example.test/cap.png' })]);

    expect(own.findProductByHandle('cap', BASE)?.image).toBe('https://cdn.example.test/cap.png');
  });

  it('answers undefined for an unknown handle', () => {
    expect(index.findProductByHandle('nope', BASE)).toBeUndefined();
  });
});

describe('searchProducts over the shipped catalog', () => {
  const all = CatalogFeed.parse(JSON.parse(readFileSync(DEFAULT_CATALOG_FILE, 'utf8')));
  const big = createCatalogIndex(all);

  /** Every product scored, best first, ties in catalog order: what the index must agree with. */
  function fullScan(q: string): string[] {
    const terms = queryTerms(q);
    return all
      .map((e, i) => {
        const { text, ends } = searchFields(e);
        return { handle: e.handle, i, score: scoreMatch(text, ends, terms) };
      })
      .filter((m) => m.score >= 0)
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((m) => m.handle);
  }

  it.each(['hoodie', 'bio', 'bio t-shirt', 'tshirt kinder', 'schuerze gastro', 'Schürze', 'mütze winter', 'grosse plus', 'café', 'o', 'ie', 'xylophon', 'T-Shirt', 'bio-baumwolle'])(
    'finds for "%s" exactly what scoring every product finds, in the same order',
    (q) => {
      const page = big.searchProducts(buildFilter({ q, limit: 10_000 }), BASE);

      expect(page.products.map((p) => p.handle)).toEqual(fullScan(q));
      expect(page.total).toBe(fullScan(q).length);
    },
  );
});
