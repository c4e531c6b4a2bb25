import { ErrorEnvelope, SHOP_CATEGORIES, ShopList } from '@msa/contracts';
import { TEST_BASE_URL } from '@msa/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { SHOP_SITE_BASE_URL } from '../src/domain/shop-view.js';
import { asGateway, buildShopsApp } from './build-shops.js';

const app = buildShopsApp();
const get = (path: string) => request(app).get(path).set(asGateway());

describe('GET /v1/shops', () => {
  it('lists every public shop with generated_at and count', async () => {
    const res = await get('/v1/shops');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const list = ShopList.parse(res.body);
    expect(list.count).toBe(list.shops.length);
    expect(list.count).toBeGreaterThanOrEqual(14);
  });

  it('derives shop URLs from the shop platform and images from PUBLIC_BASE_URL', async () => {
    const res = await get('/v1/shops');
    const tsv = res.body.shops.find((s: { name: string }) => s.name === 'TSV Musterstadt 1904');

    expect(tsv).toEqual({
      name: 'TSV Musterstadt 1904',
      category: 'verein',
      url: `${SHOP_SITE_BASE_URL}/tsv-musterstadt-1904`,
      password_protected: false,
      image: `${TEST_BASE_URL}/images/shops/tsv-musterstadt-1904.svg`,
    });
    expect(res.body.shops.some((s: { image: unknown }) => s.image === null)).toBe(true);
  });

  it.each(SHOP_CATEGORIES)('keeps only shops of category %s', async (category) => {
    const res = await get(`/v1/shops?category=${category}`);

    expect(res.status).toBe(200);
    expect(res.body.count).toBeGreaterThanOrEqual(2);
    for (const shop of res.body.shops) expect(shop.category).toBe(category);
  });

  it.each(['handwerk', 'Schule', '', 'schule&category=verein'])(
    'answers 400 invalid_request naming category for category=%s',
    async (category) => {
      const res = await get(`/v1/shops?category=${category}`);

      expect(res.status).toBe(400);
      const { error } = ErrorEnvelope.parse(res.body);
      expect(error).toMatchObject({ code: 'invalid_request', status: 400 });
      expect(error.fields?.map((f) => f.field)).toEqual(['category']);
    },
  );

  it('answers an ETag and Cache-Control, and 304 to a matching If-None-Match', async () => {
    const first = await get('/v1/shops?category=gastro');
    const again = await get('/v1/shops?category=gastro').set('If-None-Match', first.headers.etag!);
    const other = await get('/v1/shops?category=schule').set('If-None-Match', first.headers.etag!);

    expect(first.headers.etag).toMatch(/^"[^"]+"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(other.status).toBe(200);
  });

  it('puts image links under /sandbox for a sandbox call', async () => {
    const res = await request(app).get('/v1/shops?category=verein').set(asGateway({ sandbox: true }));

    const withImage = res.body.shops.find((s: { image: string | null }) => s.image !== null);
    expect(withImage.image).toMatch(new RegExp(`^${TEST_BASE_URL}/sandbox/images/shops/`));
  });

  it('answers 405 with Allow for another method', async () => {
    const res = await request(app).delete('/v1/shops').set(asGateway());

    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
  });
});
