// Shop requests through the gateway: credentials, scopes, sandbox routing,
// ownership and the hand-over of live requests to the intake queue.
import { IntakeJob, ShopRequestResult } from '@msa/contracts';
import { createRedis } from '@msa/service-kit/redis';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let system: System;
let api: supertest.Agent;
let queueConnection: Redis;
let queue: Queue<IntakeJob>;

beforeAll(async () => {
  system = await startSystem({ name: 'requests-shop-requests' });
  api = supertest.agent(system.baseUrl);
  queueConnection = createRedis(system.redisUrl, 'api');
  queue = new Queue<IntakeJob>('intake', { connection: queueConnection, prefix: system.queuePrefix });
});
afterAll(async () => {
  await queue?.close();
  queueConnection?.disconnect();
  await system?.close();
});

function buildShopRequest(overrides: Record<string, unknown> = {}) {
  return {
    organization: { name: 'Grundschule am Park', type: 'schule', contact_name: 'Frau Beispiel', email: 'sekretariat@gs-park.example' },
    shop_name: 'GS am Park Schulshop',
    products: [{ product: 'Bio T-Shirt Kinder', colors: ['Navy'], designs: [{ position: 'Brust links', width_cm: 8 }] }],
    team_size: 120,
    ...overrides,
  };
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

describe('shop requests through the gateway', () => {
  it('accepts a request made with a sandbox key as a sandbox request and reads it back', async () => {
    const key = await createKey(system.baseUrl, { mode: 'sandbox' });

    const created = await api.post('/v1/shop-requests').set(bearer(key.api_key)).send(buildShopRequest());
    const readBack = await api.get(`/v1/shop-requests/${created.body.id}`).set(bearer(key.api_key));
    const viaSandbox = await api.get(`/sandbox/v1/shop-requests/${created.body.id}`).set(bearer(key.api_key));

    expect(created.status).toBe(201);
    const result = ShopRequestResult.parse(created.body);
    expect(result).toMatchObject({ status: 'received', sandbox: true, shop_type: 'b2c' });
    expect(result.products[0]).toMatchObject({ handle: 'bio-t-shirt-kinder', designs: 1 });
    expect(created.headers.location).toBe(`${system.baseUrl}/sandbox/v1/shop-requests/${result.id}`);
    expect(readBack.status).toBe(200);
    expect(readBack.body).toEqual(created.body);
    expect(viaSandbox.status).toBe(200);
    expect(await queue.getJob(result.id)).toBeUndefined();
  });

  it('answers 401 without credentials', async () => {
    const post = await api.post('/v1/shop-requests').send(buildShopRequest());
    const get = await api.get('/v1/shop-requests/req_0123456789abcdef');

    expect(post.status).toBe(401);
    expect(post.body.error.code).toBe('unauthorized');
    expect(get.status).toBe(401);
  });

  it('answers 403 insufficient_scope to a key without requests:write', async () => {
    const key = await createKey(system.baseUrl, { scopes: ['catalog:read', 'requests:read'] });

    const res = await api.post('/v1/shop-requests').set(bearer(key.api_key)).send(buildShopRequest());

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('insufficient_scope');
  });

  it("answers 403 forbidden to another key's GET", async () => {
    const owner = await createKey(system.baseUrl);
    const stranger = await createKey(system.baseUrl);
    const created = await api.post('/v1/shop-requests').set(bearer(owner.api_key)).send(buildShopRequest());

    const res = await api.get(`/v1/shop-requests/${created.body.id}`).set(bearer(stranger.api_key));

    expect(created.status).toBe(201);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it('answers 422 with one field per problem', async () => {
    const key = await createKey(system.baseUrl);

    const res = await api
      .post('/v1/shop-requests')
      .set(bearer(key.api_key))
      .send(buildShopRequest({ shop_name: 'x'.repeat(81), products: [{ product: 'bio-t-shirt-kinder', designs: [{ width_cm: 41 }] }] }));

    expect(res.status).toBe(422);
    expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['products.0.designs.0.width_cm', 'shop_name']);
  });

  it('hands a request made with a live key to the intake queue under its id', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });

    const created = await api.post('/v1/shop-requests').set(bearer(key.api_key)).send(buildShopRequest());

    expect(created.status).toBe(201);
    expect(created.body.sandbox).toBe(false);
    const job = await queue.getJob(created.body.id);
    expect(IntakeJob.parse(job?.data)).toMatchObject({ request_id: created.body.id, owner_id: key.client_id });
  });

  it('keeps a live key on the sandbox path in the sandbox', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });

    const created = await api.post('/sandbox/v1/shop-requests').set(bearer(key.api_key)).send(buildShopRequest());

    expect(created.status).toBe(201);
    expect(created.body.sandbox).toBe(true);
    expect(await queue.getJob(created.body.id)).toBeUndefined();
  });

  it('replays a request sent again with the same Idempotency-Key', async () => {
    const key = await createKey(system.baseUrl);
    const body = buildShopRequest();

    const first = await api.post('/v1/shop-requests').set(bearer(key.api_key)).set('Idempotency-Key', 'retry-1').send(body);
    const again = await api.post('/v1/shop-requests').set(bearer(key.api_key)).set('Idempotency-Key', 'retry-1').send(body);

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });
});
