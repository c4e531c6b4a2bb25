import { describe, expect, it } from 'vitest';
import type { ShopEntry } from '../source/shop-entry.js';
import { createShopDirectory } from './shop-directory.js';
import { SHOP_SITE_BASE_URL } from './shop-view.js';

const BASE = 'https://api.example.test';

function buildEntry(overrides: Partial<ShopEntry> & Pick<ShopEntry, 'slug'>): ShopEntry {
  return { name: overrides.slug, category: 'verein', password_protected: false, image_path: null, ...overrides };
}

const directory = createShopDirectory([
  buildEntry({ slug: 'tsv', category: 'verein', image_path: '/images/shops/tsv.svg' }),
  buildEntry({ slug: 'gym', category: 'schule', password_protected: true }),
  buildEntry({ slug: 'fc', category: 'verein' }),
  buildEntry({ slug: 'misc', category: '' }),
]);

describe('listShops', () => {
  it('lists every shop in source order without a category', () => {
    expect(directory.listShops(undefined, BASE).map((s) => s.name)).toEqual(['tsv', 'gym', 'fc', 'misc']);
  });

  it('keeps only the shops of the category', () => {
    expect(directory.listShops('verein', BASE).map((s) => s.name)).toEqual(['tsv', 'fc']);
    expect(directory.listShops('gastro', BASE)).toEqual([]);
  });

  it('derives the shop URL from the slug and the image URL from the link base', () => {
    const [tsv, gym] = directory.listShops(undefined, BASE);

    expect(tsv).toEqual({
      name: 'tsv',
      category: 'verein',
      url: `${SHOP_SITE_BASE_URL}/tsv`,
      password_protected: false,
      image: `${BASE}/images/shops/tsv.svg`,
    });
    expect(gym).toMatchObject({ password_protected: true, image: null });
  });

  it('puts images under the sandbox base but leaves the shop URL alone', () => {
    const [tsv] = directory.listShops(undefined, `${BASE}/sandbox`);

    expect(tsv?.image).toBe(`${BASE}/sandbox/images/shops/tsv.svg`);
    expect(tsv?.url).toBe(`${SHOP_SITE_BASE_URL}/tsv`);
  });
});

describe('findShopByImagePath', () => {
  it('finds a shop by its exact image path only', () => {
    expect(directory.findShopByImagePath('/images/shops/tsv.svg')?.slug).toBe('tsv');
    expect(directory.findShopByImagePath('/images/shops/gym.svg')).toBeUndefined();
  });
});
