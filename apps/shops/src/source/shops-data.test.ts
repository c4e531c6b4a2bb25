// Guards the embedded data file against hand edits that break a category, a
// slug or an image path.
import { readFileSync } from 'node:fs';
import { SHOP_CATEGORIES, Shop } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { toShop } from '../domain/shop-view.js';
import { ShopFeed } from './shop-entry.js';
import { DEFAULT_SHOPS_FILE } from './shop-source.js';

const raw = JSON.parse(readFileSync(DEFAULT_SHOPS_FILE, 'utf8')) as Record<string, unknown>[];
const entries = ShopFeed.parse(raw);

describe('data/shops.json', () => {
  it('parses as a shops feed with at least 14 shops, each with every field written out', () => {
    expect(entries.length).toBeGreaterThanOrEqual(14);
    for (const entry of raw) {
      expect(Object.keys(entry).sort()).toEqual(['category', 'image_path', 'name', 'password_protected', 'slug']);
    }
  });

  it.each(SHOP_CATEGORIES)('has at least two shops of category %s', (category) => {
    expect(entries.filter((e) => e.category === category).length).toBeGreaterThanOrEqual(2);
  });

  it('has password-protected shops and open ones', () => {
    expect(entries.some((e) => e.password_protected)).toBe(true);
    expect(entries.some((e) => !e.password_protected)).toBe(true);
  });

  it('has unique slugs and names', () => {
    expect(new Set(entries.map((e) => e.slug)).size).toBe(entries.length);
    expect(new Set(entries.map((e) => e.name)).size).toBe(entries.length);
  });

  it('names only images this service serves (/images/shops/<slug>.svg)', () => {
    for (const entry of entries) {
      if (entry.image_path !== null) expect(entry.image_path).toBe(`/images/shops/${entry.slug}.svg`);
    }
  });

  it.each(entries.map((e) => [e.slug, e] as const))('%s validates as a contracts Shop', (_slug, entry) => {
    expect(Shop.safeParse(toShop(entry, 'https://api.example.test')).success).toBe(true);
  });
});
