import { describe, expect, it } from 'vitest';
import { SHOP_CATEGORIES, Shop, ShopCategory, ShopListQuery } from './shops.js';

describe('ShopCategory', () => {
  it.each(SHOP_CATEGORIES)('accepts %s', (category) => {
    expect(ShopListQuery.safeParse({ category }).success).toBe(true);
  });

  it('accepts handwerker, the shop category spelling', () => {
    expect(ShopCategory.safeParse('handwerker').success).toBe(true);
  });

  it('rejects handwerk, the organization type spelling, as a category', () => {
    expect(ShopCategory.safeParse('handwerk').success).toBe(false);
    expect(ShopListQuery.safeParse({ category: 'handwerk' }).success).toBe(false);
  });

  it('lets a shop carry an empty category but not a query ask for one', () => {
    const shop = { name: 'Kantine Nord', category: '', url: 'https://shop.example.de/kantine' };

    expect(Shop.safeParse(shop).success).toBe(true);
    expect(ShopListQuery.safeParse({ category: '' }).success).toBe(false);
  });
});
