// Guards the embedded data file: a hand edit that breaks a price or a handle
// fails here, not in front of an agent.
import { readFileSync } from 'node:fs';
import { HANDLE_PATTERN, Product, VAT_RATE } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { toProduct } from '../domain/product-view.js';
import { CatalogFeed } from './catalog-entry.js';
import { DEFAULT_CATALOG_FILE } from './catalog-source.js';

const raw = JSON.parse(readFileSync(DEFAULT_CATALOG_FILE, 'utf8')) as Record<string, unknown>[];
const entries = CatalogFeed.parse(raw);
const round2 = (n: number) => Math.round((n + Number.EPSILON) * 100) / 100;

describe('data/products.json', () => {
  it('parses as a catalog feed with at least 28 products', () => {
    expect(entries.length).toBeGreaterThanOrEqual(28);
  });

  it('has unique handles of the form ^[a-z0-9-]+$', () => {
    const handles = entries.map((e) => e.handle);

    expect(new Set(handles).size).toBe(handles.length);
    for (const handle of handles) expect(handle).toMatch(HANDLE_PATTERN);
  });

  it('leaves url, currency and image to the service', () => {
    for (const entry of raw) {
      expect(entry).not.toHaveProperty('url');
      expect(entry).not.toHaveProperty('currency');
      expect(entry).not.toHaveProperty('image');
    }
  });

  it.each(entries.map((e) => [e.handle, e] as const))('%s validates as a contracts Product', (_handle, entry) => {
    const product = toProduct(entry, 'https://api.example.test');

    expect(Product.safeParse(product).success).toBe(true);
  });

  it.each(entries.filter((e) => e.quantity_prices_dtf).map((e) => [e.handle, e] as const))(
    '%s has consistent volume tiers',
    (_handle, entry) => {
      const tiers = entry.quantity_prices_dtf!.tiers;

      expect(tiers.length).toBeGreaterThanOrEqual(4);
      expect(tiers[0]!.ab).toBe(1);
      expect(tiers[0]!.brutto).toBe(entry.printed_price_from);
      for (const [i, tier] of tiers.entries()) {
        expect(tier.netto, `tier ab ${tier.ab}`).toBe(round2(tier.brutto / (1 + VAT_RATE)));
        if (i > 0) {
          expect(tier.ab).toBeGreaterThan(tiers[i - 1]!.ab);
          expect(tier.brutto).toBeLessThan(tiers[i - 1]!.brutto);
        }
      }
    },
  );

  it('offers dtf on every product and a printed from-price on every product', () => {
    for (const entry of entries) {
      expect(entry.decoration).toContain('dtf');
      expect(entry.printed_price_from).toBeGreaterThan(0);
    }
  });
});
