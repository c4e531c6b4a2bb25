import type { Product, Quote, ShopRequestResult } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { formatFor } from './format.js';
import { productCard } from './render-products.js';
import { quoteView } from './render-quote.js';
import { requestView } from './render-request.js';
import { screenOf } from './screens.js';

const nbsp = (s: string) => s.replace(/\u00a0/g, ' ');

const product: Product = {
  handle: 'bio-hoodie',
  title: 'Bio Hoodie',
  url: 'https://example.org/p/bio-hoodie',
  currency: 'EUR',
  type: 'Hoodie',
  colors: ['Schwarz', 'Navy/Weiß'],
  sizes: ['S', 'M'],
  decoration: ['dtf', 'stick'],
  image: 'https://tracker.example.net/pixel.png',
  quantity_prices_dtf: { tiers: [{ ab: 1, brutto: 1234.5, netto: 1037.39 }] },
};

const quote: Quote = {
  quote_id: 'quo_0123456789abcdef',
  organization_type: 'unternehmen',
  shop_type: 'b2b',
  currency: 'EUR',
  lines: [{ product: 'Bio Hoodie', handle: 'bio-hoodie', quantity: 40, decoration: 'dtf', tier_from: 25, unit_net: 30, unit_gross: 35.7, total_net: 1200, total_gross: 1428 }],
  total_net: 1200,
  vat: 228,
  total_gross: 1428,
  created_at: '2026-03-01T10:00:00Z',
  expires_at: '2026-03-31T10:00:00Z',
  warnings: ['Embroidery is paused'],
};

describe('product cards', () => {
  it('show the tiers gross and net in the host locale, and leave the catalog image out', () => {
    const html = productCard(product, { products: [product], colors: {}, open: null }, formatFor({ locale: 'de-DE' }), '');
    expect(nbsp(html)).toContain('1.234,50 €');
    expect(nbsp(html)).toContain('1.037,39 €');
    expect(html).toContain('Shop anfragen');
    expect(html).not.toContain('tracker.example.net');
  });

  it('draw the garment in the colour the person picked', () => {
    const html = productCard(product, { products: [product], colors: { 'bio-hoodie': 'Navy/Weiß' }, open: null }, formatFor({ locale: 'en-US' }), '');
    expect(html).toContain('aria-label="Bio Hoodie, Navy/Weiß"');
    expect(html).toContain('€1,234.50');
    expect(html).toContain('Get a quote');
  });
});

describe('the quote', () => {
  it('shows lines, net, VAT and gross totals, validity and warnings', () => {
    const html = quoteView(quote, formatFor({ locale: 'en-US' }), () => 'Schwarz', '');
    expect(html).toContain('€1,200.00');
    expect(html).toContain('€228.00');
    expect(html).toContain('€1,428.00');
    expect(html).toContain('March 31, 2026');
    expect(html).toContain('Embroidery is paused');
    expect(html).toContain('Request shop');
  });
});

describe('the shop request', () => {
  const request: ShopRequestResult = {
    id: 'req_0123456789abcdef',
    status: 'received',
    sandbox: true,
    created_at: '2026-03-01T10:00:00Z',
    organization: 'TSV Musterstadt',
    shop_name: 'TSV Fanshop',
    shop_type: 'b2c',
    products: [{ product: 'Bio Hoodie', handle: 'bio-hoodie', colors: ['Schwarz'], decoration: 'dtf', designs: 0, estimated_price_from: 35 }],
    next_steps: '',
    warnings: [],
    upstream: null,
  };

  it('says a sandbox request was never sent', () => {
    const html = requestView(request, formatFor({ locale: 'en-US' }));
    expect(html).toContain('req_0123456789abcdef');
    expect(html).toContain('nothing was sent');
    expect(html).not.toContain('48 hours');
  });

  it('promises an answer within 48 hours for a live request', () => {
    expect(requestView({ ...request, sandbox: false }, formatFor({ locale: 'de-DE' }))).toContain('48 Stunden');
  });
});

describe('choosing the screen from a tool result', () => {
  it('tells products, a product, a quote, a request and an error apart', () => {
    expect(screenOf({ structuredContent: { total: 1, products: [product] } }, {}).kind).toBe('products');
    expect(screenOf({ structuredContent: product as unknown as Record<string, unknown> }, {}).kind).toBe('products');
    expect(screenOf({ structuredContent: quote as unknown as Record<string, unknown> }, { lines: [{ colors: ['Schwarz'] }] })).toMatchObject({ kind: 'quote', colors: [['Schwarz']] });
    expect(screenOf({ structuredContent: { id: 'req_0123456789abcdef', status: 'received' } }, {}).kind).toBe('request');
    expect(screenOf({ isError: true, structuredContent: { error: { message: 'nope', hint: 'try' } } }, {})).toEqual({ kind: 'error', message: 'nope', hint: 'try' });
  });
});
