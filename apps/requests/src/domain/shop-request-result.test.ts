import { ShopRequestBody, ShopRequestResult, type Product, type Quote, type ShopRequestInput } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { buildProduct } from '../../test/build-product.js';
import { createProductIndex } from './product-index.js';
import { unknownProductsInRawBody } from './requested-line.js';
import { buildShopRequestResult, estimatePriceFrom, nextSteps, type ResultContext } from './shop-request-result.js';

const shirt = buildProduct({
  quantity_prices_dtf: {
    tiers: [
      { ab: 10, brutto: 17.9, netto: 15.04 },
      { ab: 1, brutto: 19.9, netto: 16.72 },
      { ab: 25, brutto: 15.9, netto: 13.36 },
    ],
  },
  decoration: ['dtf', 'stick'],
});
const towel: Product = {
  handle: 'handtuch-bio',
  title: 'Bio Handtuch',
  url: 'https://shop.example/products/handtuch-bio',
  currency: 'EUR',
  available: false,
  printed_price_from: null,
  quantity_prices_dtf: null,
  colors: [],
};
const index = createProductIndex([shirt, towel]);

const ctx: ResultContext = {
  id: 'req_0123456789abcdef',
  createdAt: new Date('2030-05-01T10:00:00Z'),
  sandbox: false,
  anonymous: false,
  publicBaseUrl: 'https://api.example',
};

function buildBody(overrides: Partial<ShopRequestInput> = {}): ShopRequestBody {
  return ShopRequestBody.parse({
    organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Eva Muster', email: 'eva@tsv.example' },
    shop_name: 'TSV Fanshop',
    products: [{ product: 'bio-t-shirt-unisex' }],
    ...overrides,
  });
}

describe('buildShopRequestResult', () => {
  it('builds a received result that satisfies the ShopRequestResult schema', () => {
    const outcome = buildShopRequestResult(buildBody(), index, ctx);

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(ShopRequestResult.parse(outcome.result)).toEqual(outcome.result);
    expect(outcome.result).toMatchObject({
      id: ctx.id,
      status: 'received',
      sandbox: false,
      created_at: '2030-05-01T10:00:00.000Z',
      organization: 'TSV Musterstadt',
      shop_name: 'TSV Fanshop',
      shop_type: 'b2c',
      products: [{ product: 'Bio T-Shirt Unisex', handle: 'bio-t-shirt-unisex', colors: [], decoration: 'dtf', designs: 0, estimated_price_from: 19.9 }],
      warnings: [],
      upstream: null,
    });
  });

  it('resolves a product by its title regardless of case and spacing', () => {
    const outcome = buildShopRequestResult(buildBody({ products: [{ product: '  bio t-shirt   UNISEX ' }] }), index, ctx);

    expect(outcome.ok && outcome.result.products[0]?.handle).toBe('bio-t-shirt-unisex');
  });

  it('reports every unknown product on its own field', () => {
    const outcome = buildShopRequestResult(
      buildBody({ products: [{ product: 'bio-t-shirt-unisex' }, { product: 'mystery-mug' }, { product: 'Glitter Hat' }] }),
      index,
      ctx,
    );

    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.problems.map((p) => p.field)).toEqual(['products.1.product', 'products.2.product']);
    expect(outcome.problems[0]?.message).toContain('GET /v1/products');
  });

  it('uses the catalog spelling of a color and warns about an unlisted one', () => {
    const outcome = buildShopRequestResult(buildBody({ products: [{ product: 'bio-t-shirt-unisex', colors: ['schwarz', 'Pink'] }] }), index, ctx);

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.products[0]?.colors).toEqual(['Schwarz', 'Pink']);
    expect(outcome.result.warnings).toEqual([expect.stringMatching(/^products\.0\.colors: 'Pink' is not listed/)]);
  });

  it('warns that embroidery is paused', () => {
    const outcome = buildShopRequestResult(buildBody({ products: [{ product: 'bio-t-shirt-unisex', decoration: 'stick' }] }), index, ctx);

    expect(outcome.ok && outcome.result.warnings).toEqual([expect.stringMatching(/^products\.0\.decoration: embroidery \(stick\) is paused/)]);
    expect(outcome.ok && outcome.result.products[0]?.decoration).toBe('stick');
  });

  it('warns about a logo on a host that is not public, naming the design', () => {
    const outcome = buildShopRequestResult(
      buildBody({
        products: [
          {
            product: 'bio-t-shirt-unisex',
            designs: [{ logo_url: 'https://cdn.example.com/logo.png' }, { logo_url: 'http://192.168.1.20/logo.png' }],
          },
        ],
      }),
      index,
      ctx,
    );

    expect(outcome.ok && outcome.result.warnings).toEqual([expect.stringMatching(/^products\.0\.designs\.1\.logo_url: /)]);
    expect(outcome.ok && outcome.result.products[0]?.designs).toBe(2);
  });

  it('warns that private_shop is for company shops only on a b2c organization', () => {
    const outcome = buildShopRequestResult(buildBody({ private_shop: true }), index, ctx);

    expect(outcome.ok && outcome.result.warnings).toEqual([expect.stringMatching(/^private_shop: /)]);
  });

  it('accepts private_shop on a company shop without a warning', () => {
    const body = buildBody({
      private_shop: true,
      organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max', email: 'max@muster.example' },
    });

    const outcome = buildShopRequestResult(body, index, ctx);

    expect(outcome.ok && outcome.result).toMatchObject({ shop_type: 'b2b', warnings: [] });
  });

  it('warns about a product that is not available and keeps a null price', () => {
    const outcome = buildShopRequestResult(buildBody({ products: [{ product: 'handtuch-bio', colors: ['Rot'] }] }), index, ctx);

    expect(outcome.ok && outcome.result.warnings).toEqual([expect.stringMatching(/^products\.0\.product: 'Bio Handtuch' is currently not available/)]);
    expect(outcome.ok && outcome.result.products[0]?.estimated_price_from).toBeNull();
  });

  it('builds a result without products for a design-service request', () => {
    const outcome = buildShopRequestResult(buildBody({ products: undefined, design_service: true }), index, ctx);

    expect(outcome.ok && outcome.result.products).toEqual([]);
  });
});

describe('buildShopRequestResult with a quote_id', () => {
  const quote: Quote = {
    quote_id: 'quo_0123456789abcdef',
    organization_type: 'verein',
    shop_type: 'b2c',
    currency: 'EUR',
    lines: [],
    total_net: 0,
    vat: 0,
    total_gross: 0,
    created_at: '2030-05-01T09:00:00.000Z',
    expires_at: '2030-05-31T09:00:00.000Z',
    warnings: [],
  };

  it('names the quote in the result', () => {
    const outcome = buildShopRequestResult(buildBody({ quote_id: quote.quote_id }), index, ctx, quote);

    expect(outcome.ok && outcome.result).toMatchObject({ quote_id: quote.quote_id, warnings: [] });
  });

  it('reports an unknown or expired quote on quote_id, after the product problems', () => {
    const body = buildBody({ products: [{ product: 'mystery-mug' }], quote_id: 'quo_ffffffffffffffff' });

    const outcome = buildShopRequestResult(body, index, ctx, null);

    expect(outcome.ok ? [] : outcome.problems.map((p) => p.field)).toEqual(['products.0.product', 'quote_id']);
  });

  it('warns when the quote was made for the other shop type', () => {
    const body = buildBody({
      organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max Muster', email: 'max@example.org' },
      quote_id: quote.quote_id,
    });

    const outcome = buildShopRequestResult(body, index, ctx, quote);

    expect(outcome.ok && outcome.result.warnings).toEqual([expect.stringMatching(/^quote_id: the quote prices a b2c shop \(organization type verein\), this request is for a b2b shop \(unternehmen\)/)]);
  });

  it('leaves quote_id out of a result whose request named none', () => {
    const outcome = buildShopRequestResult(buildBody(), index, ctx);

    expect(outcome.ok && 'quote_id' in outcome.result).toBe(false);
  });
});

describe('unknownProductsInRawBody', () => {
  it('names unknown products of a body that failed its schema and skips what it cannot read', () => {
    const raw = { products: [{ product: 'bio-t-shirt-unisex' }, { product: 'mystery-mug', colors: 7 }, { product: 42 }, 'x', { product: '' }] };

    expect(unknownProductsInRawBody(raw, index)).toEqual([
      { field: 'products.1.product', message: expect.stringContaining("unknown product 'mystery-mug'") },
    ]);
  });

  it('finds nothing without a products array', () => {
    expect(unknownProductsInRawBody({ products: 'hoodie' }, index)).toEqual([]);
    expect(unknownProductsInRawBody(null, index)).toEqual([]);
  });
});

describe('estimatePriceFrom', () => {
  it('gives a b2c shop the gross from-price', () => {
    expect(estimatePriceFrom(shirt, 'b2c', 500)).toBe(19.9);
  });

  it('gives a b2b shop the net price of the tier that fits the team size', () => {
    expect(estimatePriceFrom(shirt, 'b2b', 9)).toBe(16.72);
    expect(estimatePriceFrom(shirt, 'b2b', 10)).toBe(15.04);
    expect(estimatePriceFrom(shirt, 'b2b', 24)).toBe(15.04);
    expect(estimatePriceFrom(shirt, 'b2b', 1000)).toBe(13.36);
  });

  it('gives a b2b shop the first tier without a team size', () => {
    expect(estimatePriceFrom(shirt, 'b2b')).toBe(16.72);
  });

  it('gives null when a b2b product has no tiers', () => {
    expect(estimatePriceFrom(towel, 'b2b', 10)).toBeNull();
  });
});

describe('nextSteps', () => {
  it('tells a live caller that the operator replies within 48 hours', () => {
    expect(nextSteps(ctx)).toContain('within 48 hours');
  });

  it('tells a sandbox caller that nothing was sent and how to go live', () => {
    const text = nextSteps({ ...ctx, sandbox: true });

    expect(text).toContain('nothing was sent');
    expect(text).toContain('https://api.example/sandbox/v1/shop-requests/req_0123456789abcdef');
    expect(text).toContain('mode "live"');
  });

  it('tells an anonymous sandbox caller how to get credentials', () => {
    const text = nextSteps({ ...ctx, sandbox: true, anonymous: true });

    expect(text).toContain('nothing was sent');
    expect(text).toContain('POST https://api.example/v1/keys');
  });
});
