import { ErrorEnvelope } from '@msa/contracts';
import { internalHeaders } from '@msa/test-kit';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildShopsApp } from './build-shops.js';

const app = buildShopsApp();

describe('internal authentication', () => {
  it.each(['/v1/shops', '/v1/shops?category=schule', '/images/shops/tsv-musterstadt-1904.svg'])(
    'rejects %s without X-Internal-Auth with the 401 envelope',
    async (path) => {
      const res = await request(app).get(path);

      expect(res.status).toBe(401);
      expect(ErrorEnvelope.parse(res.body).error).toMatchObject({ code: 'unauthorized', status: 401 });
    },
  );

  it('rejects a token meant for another service', async () => {
    const res = await request(app).get('/v1/shops').set(internalHeaders('catalog'));

    expect(res.status).toBe(401);
  });
});

describe('health', () => {
  it('answers /healthz and /readyz without internal auth', async () => {
    const health = await request(app).get('/healthz');
    const ready = await request(app).get('/readyz');

    expect(health.body).toEqual({ status: 'ok' });
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });
});

describe('unknown routes', () => {
  it('answer the 404 envelope, never HTML', async () => {
    const res = await request(app).get('/v1/shop').set(internalHeaders('shops'));

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});
