import { describe, expect, it } from 'vitest';
import { ShopFeed } from './shop-entry.js';

const entry = { name: 'TSV', category: 'verein', slug: 'tsv', password_protected: false, image_path: null };

describe('ShopFeed', () => {
  it('accepts a bare array and a { shops } object alike', () => {
    expect(ShopFeed.parse([entry])).toEqual([entry]);
    expect(ShopFeed.parse({ shops: [entry] })).toEqual([entry]);
  });

  it('defaults password_protected to false and image_path to null', () => {
    expect(ShopFeed.parse([{ name: 'TSV', category: 'verein', slug: 'tsv' }])).toEqual([entry]);
  });

  it('accepts the empty category the specification allows', () => {
    expect(ShopFeed.safeParse([{ ...entry, category: '' }]).success).toBe(true);
  });

  it.each([
    ['an unknown category', { category: 'handwerk' }],
    ['a slug with capitals', { slug: 'TSV' }],
    ['an image path that is a URL', { image_path: 'https://elsewhere.test/x.svg' }],
    ['an image path climbing up', { image_path: '/images/../secret' }],
  ])('rejects the whole feed for %s', (_case, override) => {
    expect(ShopFeed.safeParse([entry, { ...entry, slug: 'other', ...override }]).success).toBe(false);
  });

  it('rejects duplicate slugs', () => {
    const result = ShopFeed.safeParse([entry, { ...entry, name: 'TSV 2' }]);

    expect(result.error?.issues[0]?.message).toBe("duplicate slug 'tsv'");
  });
});
