import { ErrorEnvelope, ProductList } from '@msa/contracts';
import { TEST_BASE_URL } from '@msa/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { asGateway, buildCatalogApp } from './build-catalog.js';

const app = buildCatalogApp();
const get = (path: string) => request(app).get(path).set(asGateway());

describe('GET /v1/products', () => {
  it('lists the first 50 products with total, limit, offset and generated_at', async () => {
    const res = await get('/v1/products');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const list = ProductList.parse(res.body);
    expect(list.total).toBeGreaterThanOrEqual(28);
    expect(list).toMatchObject({ limit: 50, offset: 0 });
    expect(list.products).toHaveLength(Math.min(list.total, 50));
    expect(list.generated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('gives each product a url and an image under PUBLIC_BASE_URL and the currency EUR', async () => {
    const res = await get('/v1/products?limit=1');

    expect(res.body.products[0]).toMatchObject({
      url: `${TEST_BASE_URL}/v1/products/${res.body.products[0].handle}`,
      image: `${TEST_BASE_URL}/images/products/${res.body.products[0].handle}.svg`,
      currency: 'EUR',
    });
  });

  it('answers the same query with live links and sandbox links, each for its own caller', async () => {
    const live = await request(app).get('/v1/products?limit=1&q=shirt').set(asGateway());
    const sandbox = await request(app).get('/v1/products?limit=1&q=shirt').set(asGateway({ sandbox: true }));
    const liveAgain = await request(app).get('/v1/products?limit=1&q=shirt').set(asGateway());

    expect(live.body.products[0].url).toBe(`${TEST_BASE_URL}/v1/products/${live.body.products[0].handle}`);
    expect(sandbox.body.products[0].url).toBe(`${TEST_BASE_URL}/sandbox/v1/products/${live.body.products[0].handle}`);
    expect(liveAgain.body).toEqual(live.body);
    expect(sandbox.headers.etag).not.toBe(live.headers.etag);
  });

  it('puts links under /sandbox for a sandbox call', async () => {
    const res = await request(app).get('/v1/products?limit=1').set(asGateway({ sandbox: true }));

    expect(res.body.products[0].url).toBe(`${TEST_BASE_URL}/sandbox/v1/products/${res.body.products[0].handle}`);
  });

  it('searches across accents and terms', async () => {
    const res = await get(`/v1/products?q=${encodeURIComponent('schurze bio')}`);

    expect(res.status).toBe(200);
    expect(res.body.products.map((p: { handle: string }) => p.handle)).toEqual(['latzschurze-bio']);
    expect(res.body.total).toBe(1);
  });

  it('filters by type or tag and by decoration', async () => {
    const res = await get('/v1/products?type=hoodie&decoration=stick');

    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThan(0);
    for (const p of res.body.products) {
      expect(p.type).toBe('Hoodie');
      expect(p.decoration).toContain('stick');
    }
  });

  it('pages with limit and offset, total counting every match', async () => {
    const all = await get('/v1/products?limit=250');
    const page = await get('/v1/products?limit=5&offset=10');

    expect(page.body).toMatchObject({ total: all.body.total, limit: 5, offset: 10 });
    expect(page.body.products).toEqual(all.body.products.slice(10, 15));
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=251', 'limit'],
    ['limit=ten', 'limit'],
    ['offset=-1', 'offset'],
    [`q=${'x'.repeat(101)}`, 'q'],
    [`type=${'x'.repeat(61)}`, 'type'],
    ['decoration=screen', 'decoration'],
    ['q=a&q=b', 'q'],
  ])('answers 400 invalid_request naming the field for %s', async (query, field) => {
    const res = await get(`/v1/products?${query}`);

    expect(res.status).toBe(400);
    const { error } = ErrorEnvelope.parse(res.body);
    expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(error.fields?.map((f) => f.field)).toContain(field);
  });

  it('accepts the bounds themselves', async () => {
    const res = await get(`/v1/products?limit=250&offset=0&q=${'x'.repeat(100)}&type=${'y'.repeat(60)}`);

    expect(res.status).toBe(200);
    expect(res.body.total).toBe(0);
  });

  it('answers an ETag and Cache-Control, and 304 to a matching If-None-Match', async () => {
    const first = await get('/v1/products?q=hoodie');

    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    const again = await get('/v1/products?q=hoodie').set('If-None-Match', first.headers.etag!);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  it('answers 200 with the body when If-None-Match names another ETag', async () => {
    const other = await get('/v1/products?q=cap');
    const res = await get('/v1/products?q=hoodie').set('If-None-Match', other.headers.etag!);

    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThan(0);
  });

  it('answers 405 with Allow for another method', async () => {
    const res = await request(app).post('/v1/products').set(asGateway());

    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.body.error.code).toBe('method_not_allowed');
  });
});

// The embedded catalog as an agent meets it: the first hit is what it orders.
describe('GET /v1/products?q= on the embedded catalog', () => {
  const search = async (q: string) => {
    const res = await get(`/v1/products?q=${encodeURIComponent(q)}`);
    expect(res.status).toBe(200);
    return ProductList.parse(res.body).products;
  };

  it('lists the three hoodies before the longsleeve whose description mentions a hoodie', async () => {
    const products = await search('hoodie');

    expect(products.map((p) => p.title)).toEqual(['Bio Hoodie Unisex', 'Bio Hoodie Kinder', 'Bio Zip-Hoodie', 'Bio Longsleeve Unisex']);
    expect(products.slice(0, 3).every((p) => p.type === 'Hoodie')).toBe(true);
  });

  it.each(['t-shirt', 'tshirt', 'T-Shirt'])('lists the products titled T-Shirt first for q=%s', async (q) => {
    const products = await search(q);

    expect(products.slice(0, 5).map((p) => p.title)).toEqual([
      'Bio T-Shirt Unisex',
      'Bio T-Shirt Damen tailliert',
      'Bio T-Shirt Kinder',
      'Premium T-Shirt Heavy',
      'Workwear T-Shirt',
    ]);
    expect(products.slice(0, 5).every((p) => p.type === 'T-Shirt')).toBe(true);
  });

  it('lists the T-Shirt typed Funktionsshirt right after the titled ones', async () => {
    const products = await search('t-shirt');

    expect(products[5]?.title).toBe('Funktionsshirt Sport');
  });

  it.each(['kappe', 'cap', 'Kappe'])('lists the caps first for q=%s', async (q) => {
    const products = await search(q);

    expect(products.slice(0, 2).map((p) => p.title)).toEqual(['Baseball Cap Bio-Baumwolle', 'Trucker Cap']);
    expect(products.slice(0, 2).every((p) => p.type === 'Cap')).toBe(true);
  });

  // The embedded catalog has no mugs; a bag ("Tasche") must not pass for one.
  it.each(['tasse', 'becher'])('answers no product for q=%s rather than a near miss', async (q) => {
    expect(await search(q)).toEqual([]);
  });

  it('still finds a product whose description alone holds the term, after every title match', async () => {
    const hoodies = await search('hoodie');
    const bags = await search('tasche');

    expect(hoodies.at(-1)?.title).toBe('Bio Longsleeve Unisex');
    const titled = bags.filter((p) => p.title.toLowerCase().includes('tasche'));
    expect(bags.slice(0, titled.length)).toEqual(titled);
    expect(bags.slice(0, 4).every((p) => p.type === 'Tasche')).toBe(true);
    // "Kängurutasche" is in its description only.
    expect(bags.findIndex((p) => p.handle === 'bio-hoodie-unisex')).toBeGreaterThanOrEqual(4);
  });

  it('ranks a whole word in a description above a word start there', async () => {
    const products = await search('kapuze');

    expect(products.map((p) => p.title)).toEqual(['Bio Hoodie Kinder', 'Bio Hoodie Unisex', 'Bio Zip-Hoodie']);
  });

  it('pages the ranked list, not the catalog order', async () => {
    const all = await search('hoodie');
    const res = await get('/v1/products?q=hoodie&limit=2&offset=1');

    expect(res.body.total).toBe(all.length);
    expect(res.body.products.map((p: { handle: string }) => p.handle)).toEqual(all.slice(1, 3).map((p) => p.handle));
  });
});
