import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildShopRequest, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('idempotency');
});
afterAll(async () => {
  await h?.close();
});

const jobTotal = async () => Object.values(await h.intake.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed')).reduce((a, b) => a + b, 0);

describe('POST /v1/shop-requests with Idempotency-Key', () => {
  it('replays the first response for the same key and body, marked Idempotent-Replayed', async () => {
    const principal = liveWriter();
    const body = buildShopRequest();
    const recordsBefore = await h.recordCount();
    const jobsBefore = await jobTotal();

    const first = await h.post(body, { principal, idempotencyKey: 'order-42' });
    const again = await h.post(body, { principal, idempotencyKey: 'order-42' });

    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await h.recordCount()).toBe(recordsBefore + 1);
    expect(await jobTotal()).toBe(jobsBefore + 1);
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const principal = sandboxWriter();
    await h.post(buildShopRequest(), { principal, sandbox: true, idempotencyKey: 'k-1' });

    const res = await h.post(buildShopRequest({ shop_name: 'Another shop' }), { principal, sandbox: true, idempotencyKey: 'k-1' });

    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_reused');
  });

  it('does not count a replay against the daily quota', async () => {
    const principal = liveWriter();
    const body = buildShopRequest();
    await h.post(body, { principal, idempotencyKey: 'once' });
    for (let i = 0; i < 6; i++) {
      expect((await h.post(body, { principal, idempotencyKey: 'once' })).status).toBe(201);
    }

    const fresh: number[] = [];
    for (let i = 0; i < 4; i++) fresh.push((await h.post(buildShopRequest({ notes: `n${i}` }), { principal })).status);

    expect(fresh).toEqual([201, 201, 201, 201]);
    expect((await h.post(buildShopRequest({ notes: 'sixth' }), { principal })).status).toBe(429);
  });

  it('creates exactly one request for 10 concurrent identical POSTs with one key', async () => {
    const principal = liveWriter();
    const body = buildShopRequest({ shop_name: 'Concurrent shop' });
    const recordsBefore = await h.recordCount();
    const jobsBefore = await jobTotal();

    const responses = await Promise.all(Array.from({ length: 10 }, () => h.post(body, { principal, idempotencyKey: 'burst' })));

    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(responses.map((r) => r.body.id)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await h.recordCount()).toBe(recordsBefore + 1);
    expect(await jobTotal()).toBe(jobsBefore + 1);
  });

  it('keeps a key used on the sandbox apart from the same key on the live path', async () => {
    const principal = liveWriter();
    const body = buildShopRequest();

    const sandbox = await h.post(body, { principal, sandbox: true, idempotencyKey: 'shared' });
    const live = await h.post(body, { principal, idempotencyKey: 'shared' });

    expect(sandbox.body.sandbox).toBe(true);
    expect(live.body.sandbox).toBe(false);
    expect(live.headers['idempotent-replayed']).toBeUndefined();
    expect(live.body.id).not.toBe(sandbox.body.id);
  });

  it('keeps the key spaces of two principals apart', async () => {
    const body = buildShopRequest();

    const a = await h.post(body, { principal: sandboxWriter(), sandbox: true, idempotencyKey: 'same-key' });
    const b = await h.post(body, { principal: sandboxWriter(), sandbox: true, idempotencyKey: 'same-key' });

    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });
});
