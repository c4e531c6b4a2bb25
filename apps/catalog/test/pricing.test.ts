import { Pricing } from '@msa/contracts';
import { TEST_BASE_URL } from '@msa/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { asGateway, buildCatalogApp } from './build-catalog.js';

const app = buildCatalogApp();
const get = (path: string) => request(app).get(path).set(asGateway());

describe('GET /v1/pricing', () => {
  it('answers the pricing overview with every product summarised', async () => {
    const res = await get('/v1/pricing');
    const products = await get('/v1/products?limit=250');

    expect(res.status).toBe(200);
    const pricing = Pricing.parse(res.body);
    expect(pricing).toMatchObject({
      currency: 'EUR',
      shop_setup: { price: 0, currency: 'EUR' },
      minimum_order_quantity: 1,
      delivery_area: ['DE', 'AT'],
    });
    expect(Object.keys(pricing.decoration)).toEqual(expect.arrayContaining(['dtf', 'stick']));
    expect(pricing.products.map((p) => p.handle)).toEqual(products.body.products.map((p: { handle: string }) => p.handle));
    expect(pricing.products[0]?.url).toMatch(new RegExp(`^${TEST_BASE_URL}/v1/products/`));
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await get('/v1/pricing');
    const again = await get('/v1/pricing').set('If-None-Match', first.headers.etag!);

    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect(again.status).toBe(304);
  });

  it('gives the sandbox its own links and so its own ETag', async () => {
    const live = await get('/v1/pricing');
    const sandbox = await request(app).get('/v1/pricing').set(asGateway({ sandbox: true }));

    expect(sandbox.body.products[0].url).toContain('/sandbox/v1/products/');
    expect(sandbox.headers.etag).not.toBe(live.headers.etag);
  });
});
