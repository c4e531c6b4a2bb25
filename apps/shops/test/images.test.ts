import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { asGateway, buildShopsApp } from './build-shops.js';

const app = buildShopsApp();
const get = (path: string) => request(app).get(path).set(asGateway());

describe('GET /images/shops/:file', () => {
  it('serves an SVG placeholder at every image the shop list names', async () => {
    const list = await get('/v1/shops');
    const images = list.body.shops.map((s: { image: string | null }) => s.image).filter(Boolean) as string[];

    expect(images.length).toBeGreaterThan(0);
    for (const image of images) {
      const res = await get(new URL(image).pathname).buffer(true);
      expect(res.status, image).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    }
  });

  it('shows the shop name', async () => {
    const res = await get('/images/shops/baeckerei-sonnenkorn.svg').buffer(true);

    expect(res.body.toString('utf8')).toContain('Bäckerei Sonnenkorn');
  });

  it.each(['/images/shops/cafe-zimtschnecke.svg', '/images/shops/nope.svg', '/images/shops/tsv-musterstadt-1904.png'])(
    'answers the 404 envelope for %s',
    async (path) => {
      const res = await get(path);

      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    },
  );
});
