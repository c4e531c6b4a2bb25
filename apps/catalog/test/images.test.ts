import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { asGateway, buildCatalogApp } from './build-catalog.js';

const app = buildCatalogApp();
const get = (path: string) => request(app).get(path).set(asGateway());

describe('GET /images/products/:handle.svg', () => {
  it('answers an SVG placeholder with the title and first colour', async () => {
    const res = await get('/images/products/bistroschurze.svg').buffer(true);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers.etag).toBeDefined();
    const svg = res.body.toString('utf8');
    expect(svg).toContain('Bistroschürze');
    expect(svg).toContain('Schwarz');
  });

  it('serves the image every product names', async () => {
    const list = await get('/v1/products?limit=3');

    for (const product of list.body.products) {
      const path = new URL(product.image).pathname;
      const res = await get(path);
      expect(res.status, path).toBe(200);
    }
  });

  it.each(['/images/products/nope.svg', '/images/products/bistroschurze.png', '/images/products/Bad.svg'])(
    'answers 404 for %s',
    async (path) => {
      const res = await get(path);

      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.error.code).toBe('product_not_found');
    },
  );
});
