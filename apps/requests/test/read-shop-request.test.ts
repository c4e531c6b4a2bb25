import { ShopRequestResult } from '@msa/contracts';
import { internalHeaders } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPrincipal, buildShopRequest, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('read');
});
afterAll(async () => {
  await h?.close();
});

describe('GET /v1/shop-requests/:id', () => {
  it('returns the stored result to the credentials that created it (rule 5)', async () => {
    const principal = sandboxWriter();
    const created = await h.post(buildShopRequest(), { principal, sandbox: true });

    const res = await h.get(created.body.id, { principal, sandbox: true });

    expect(res.status).toBe(200);
    expect(ShopRequestResult.parse(res.body)).toEqual(created.body);
  });

  it('returns a live request to its owner on the sandbox path too, and a sandbox one on the live path', async () => {
    const principal = liveWriter();
    const live = await h.post(buildShopRequest(), { principal });
    const sandbox = await h.post(buildShopRequest(), { principal, sandbox: true });

    const liveViaSandbox = await h.get(live.body.id, { principal, sandbox: true });
    const sandboxViaLive = await h.get(sandbox.body.id, { principal });

    expect(liveViaSandbox.status).toBe(200);
    expect(liveViaSandbox.body).toEqual(live.body);
    expect(sandboxViaLive.status).toBe(200);
    expect(sandboxViaLive.body).toEqual(sandbox.body);
  });

  it('answers 403 forbidden to other credentials', async () => {
    const created = await h.post(buildShopRequest(), { principal: sandboxWriter(), sandbox: true });

    const res = await h.get(created.body.id, { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('answers 403 forbidden to an anonymous caller from another IP', async () => {
    const created = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip: '198.51.100.1' });

    const own = await h.get(created.body.id, { principal: null, sandbox: true, ip: '198.51.100.1' });
    const other = await h.get(created.body.id, { principal: null, sandbox: true, ip: '198.51.100.2' });

    expect(own.status).toBe(200);
    expect(other.status).toBe(403);
  });

  it('answers 404 shop_request_not_found to an unknown id', async () => {
    const res = await h.get('req_00000000deadbeef', { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('shop_request_not_found');
  });

  it.each(['req_123', 'req_0123456789ABCDEF', 'order_0123456789abcdef', 'req_0123456789abcdef0'])(
    'answers 400 invalid_request to the malformed id %s',
    async (id) => {
      const res = await h.get(id, { principal: sandboxWriter(), sandbox: true });

      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', fields: [{ field: 'id' }] });
    },
  );

  it('answers 403 insufficient_scope without requests:read', async () => {
    const principal = buildPrincipal({ scopes: ['requests:write'] });
    const created = await h.post(buildShopRequest(), { principal, sandbox: true });

    const res = await h.get(created.body.id, { principal, sandbox: true });

    expect(created.status).toBe(201);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it('answers 401 to a live call without a principal', async () => {
    const res = await h.get('req_00000000deadbeef', { principal: null });

    expect(res.status).toBe(401);
  });

  it('answers 405 with Allow to a method the path does not support', async () => {
    const created = await h.post(buildShopRequest(), { principal: sandboxWriter(), sandbox: true });

    const res = await request(h.app).delete(`/v1/shop-requests/${created.body.id}`).set(internalHeaders('requests', {}));

    expect(res.status).toBe(405);
    expect(res.headers.allow).toContain('GET');
  });

  it('answers 401 to a call that did not come through the gateway', async () => {
    const res = await request(h.app).get('/v1/shop-requests/req_00000000deadbeef');

    expect(res.status).toBe(401);
  });
});
