import { ErrorEnvelope, Product } from '@msa/contracts';
import { TEST_BASE_URL } from '@msa/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { asGateway, buildCatalogApp } from './build-catalog.js';

const app = buildCatalogApp();
const get = (path: string) => request(app).get(path).set(asGateway());

describe('GET /v1/products/:handle', () => {
  it('answers the product with from-price and volume tiers', async () => {
    const res = await get('/v1/products/bio-hoodie-unisex');

    expect(res.status).toBe(200);
    const product = Product.parse(res.body);
    expect(product).toMatchObject({
      handle: 'bio-hoodie-unisex',
      url: `${TEST_BASE_URL}/v1/products/bio-hoodie-unisex`,
      currency: 'EUR',
      printed_price_from: product.quantity_prices_dtf?.tiers[0]?.brutto,
    });
    expect(product.quantity_prices_dtf?.tiers.length).toBeGreaterThanOrEqual(4);
  });

  it('answers the same product as the list does', async () => {
    const list = await get('/v1/products?limit=250');
    const one = await get('/v1/products/bistroschurze');

    expect(list.body.products.find((p: { handle: string }) => p.handle === 'bistroschurze')).toEqual(one.body);
  });

  it('answers 404 product_not_found with a hint naming GET /v1/products', async () => {
    const res = await get('/v1/products/hoodie-classic');

    expect(res.status).toBe(404);
    const { error } = ErrorEnvelope.parse(res.body);
    expect(error).toMatchObject({ code: 'product_not_found', status: 404, message: "No product with handle 'hoodie-classic'." });
    expect(error.hint).toContain('GET /v1/products');
    expect(error.docs).toBe(`${TEST_BASE_URL}/developers#product_not_found`);
  });

  it.each(['Bio-Hoodie', 'bio_hoodie', 'h%C3%BCte', 'a%20b'])('answers 400 invalid_request for the handle %s', async (handle) => {
    const res = await get(`/v1/products/${handle}`);

    expect(res.status).toBe(400);
    const { error } = ErrorEnvelope.parse(res.body);
    expect(error.code).toBe('invalid_request');
    expect(error.fields?.[0]?.field).toBe('handle');
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await get('/v1/products/trucker-cap');
    const again = await get('/v1/products/trucker-cap').set('If-None-Match', first.headers.etag!);

    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect(again.status).toBe(304);
  });
});
