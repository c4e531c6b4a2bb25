import { Quote, QuoteBody, type Product, type QuoteInput } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { buildQuote } from './create-quote.js';
import { createProductIndex } from './product-index.js';

const shirt: Product = {
  handle: 'bio-t-shirt-unisex',
  title: 'Bio T-Shirt Unisex',
  url: 'https://api.example/v1/products/bio-t-shirt-unisex',
  currency: 'EUR',
  available: true,
  printed_price_from: 19.9,
  quantity_prices_dtf: {
    tiers: [
      { ab: 1, brutto: 19.9, netto: 16.72 },
      { ab: 10, brutto: 17.9, netto: 15.04 },
      { ab: 25, brutto: 15.9, netto: 13.36 },
    ],
  },
  decoration: ['dtf', 'stick'],
  colors: ['Schwarz', 'Weiß', 'Navy'],
};
const towel: Product = {
  handle: 'handtuch-bio',
  title: 'Bio Handtuch',
  url: 'https://api.example/v1/products/handtuch-bio',
  currency: 'EUR',
  printed_price_from: null,
  quantity_prices_dtf: null,
};
const products = createProductIndex([shirt, towel]);
const meta = { id: 'quo_0123456789abcdef', createdAt: new Date('2030-05-01T10:00:00Z'), lifetimeSeconds: 30 * 86_400 };

function build(input: QuoteInput) {
  return buildQuote(QuoteBody.parse(input), products, meta);
}

describe('buildQuote', () => {
  it('answers the Quote shape with its id, basis, currency and expiry', () => {
    const outcome = build({ organization_type: 'handwerk', lines: [{ product: 'bio-t-shirt-unisex', quantity: 10 }] });

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(Quote.parse(outcome.quote)).toEqual(outcome.quote);
    expect(outcome.quote).toEqual({
      quote_id: 'quo_0123456789abcdef',
      organization_type: 'handwerk',
      shop_type: 'b2b',
      currency: 'EUR',
      lines: [
        {
          product: 'Bio T-Shirt Unisex',
          handle: 'bio-t-shirt-unisex',
          quantity: 10,
          decoration: 'dtf',
          tier_from: 10,
          unit_net: 15.04,
          unit_gross: 17.9,
          total_net: 150.4,
          total_gross: 178.98,
        },
      ],
      total_net: 150.4,
      vat: 28.58,
      total_gross: 178.98,
      created_at: '2030-05-01T10:00:00.000Z',
      expires_at: '2030-05-31T10:00:00.000Z',
      warnings: [],
    });
  });

  it('prices the same line net by tier for a company and gross per piece for a club', () => {
    const line = { product: 'bio-t-shirt-unisex', quantity: 25 };

    const company = build({ organization_type: 'unternehmen', lines: [line] });
    const club = build({ organization_type: 'verein', lines: [line] });

    expect(company.ok && company.quote.lines[0]).toMatchObject({ tier_from: 25, unit_net: 13.36, unit_gross: 15.9, total_net: 334 });
    expect(club.ok && club.quote.shop_type).toBe('b2c');
    expect(club.ok && club.quote.lines[0]).toMatchObject({ tier_from: null, unit_net: 16.72, unit_gross: 19.9, total_gross: 497.5 });
    expect(club.ok && club.quote).toMatchObject({ total_gross: 497.5, vat: 79.43, total_net: 418.07 });
  });

  it('resolves a product by its exact title, ignoring case', () => {
    const outcome = build({ organization_type: 'schule', lines: [{ product: 'BIO T-SHIRT UNISEX', quantity: 1 }] });

    expect(outcome.ok && outcome.quote.lines[0]?.handle).toBe('bio-t-shirt-unisex');
  });

  it('warns, as a shop request does, about an unlisted color and paused embroidery, and spells listed colors its own way', () => {
    const outcome = build({
      organization_type: 'verein',
      lines: [{ product: 'bio-t-shirt-unisex', quantity: 12, decoration: 'stick', colors: ['schwarz', 'Lila'] }],
    });

    expect(outcome.ok && outcome.quote.warnings).toEqual([
      "lines.0.colors: 'Lila' is not listed for 'Bio T-Shirt Unisex' (listed: Schwarz, Weiß, Navy); the operator will suggest the closest listed color.",
      'lines.0.decoration: embroidery (stick) is paused; the operator will suggest print (dtf) instead.',
    ]);
    expect(outcome.ok && outcome.quote.lines[0]).toMatchObject({ decoration: 'stick', unit_gross: 19.9 });
  });

  it('reports every unknown product, and a product without any price, on its own field', () => {
    const outcome = build({
      organization_type: 'unternehmen',
      lines: [
        { product: 'bio-t-shirt-unisex', quantity: 1 },
        { product: 'golden-shirt', quantity: 1 },
        { product: 'handtuch-bio', quantity: 1 },
      ],
    });

    expect(outcome).toEqual({
      ok: false,
      problems: [
        { field: 'lines.1.product', message: "unknown product 'golden-shirt'; use a handle or title listed by GET /v1/products" },
        { field: 'lines.2.product', message: "'Bio Handtuch' has no price in the catalog; the operator prices it on request" },
      ],
    });
  });
});
