import { IntakeJob } from '@msa/contracts';
import { createRedis } from '@msa/service-kit/redis';
import { testLogger } from '@msa/test-kit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntakeQueue } from '../src/intake/intake-queue.js';
import { createReconciler } from '../src/intake/reconciler.js';
import { createShopRequestStore } from '../src/store/shop-request-store.js';
import { buildShopRequest, closedRedisUrl, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

const ALL_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed', 'waiting-children'] as const;

/** A person who confirmed their address on the consent page, through a client they authorized. */
const confirmedWriter = () =>
  liveWriter({ via: 'oauth', confirmed_email: 'eva.muster@tsv-musterstadt.example', client: { id: 'https://agent.example/client.json', name: 'Agent Desktop' } });
const SUBMITTER = { email: 'eva.muster@tsv-musterstadt.example', client_id: 'https://agent.example/client.json', client_name: 'Agent Desktop' };

async function jobTotal(h: Harness): Promise<number> {
  const counts = await h.intake.queue.getJobCounts(...ALL_STATES);
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

describe('intake hand-over', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('intake');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('never queues a request made with a sandbox key (rule 4) and still stores it', async () => {
    const res = await h.post(buildShopRequest(), { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(201);
    expect(res.body.sandbox).toBe(true);
    expect(res.body.next_steps).toContain('nothing was sent');
    expect(await jobTotal(h)).toBe(0);
    expect((await h.store.get(res.body.id))?.intake).toBe('none');
  });

  it('never queues a request a live key makes on the sandbox path', async () => {
    const res = await h.post(buildShopRequest(), { principal: liveWriter(), sandbox: true });

    expect(res.status).toBe(201);
    expect(res.body.sandbox).toBe(true);
    expect(await jobTotal(h)).toBe(0);
  });

  it('queues a live request exactly once, with the request id as job id, and records it as queued', async () => {
    const principal = liveWriter();
    const before = await jobTotal(h);

    const res = await h.post(buildShopRequest(), { principal }).set('x-request-id', 'trace-me-123');

    expect(res.status).toBe(201);
    expect(res.body.sandbox).toBe(false);
    expect(res.body.next_steps).toContain('within 48 hours');
    expect(await jobTotal(h)).toBe(before + 1);
    const job = await h.intake.queue.getJob(res.body.id);
    expect(job?.id).toBe(res.body.id);
    expect(job?.name).toBe('intake');
    const data = IntakeJob.parse(job?.data);
    expect(data).toMatchObject({ request_id: res.body.id, owner_id: principal.id, result: res.body });
    expect(data.request_trace.request_id).toBe('trace-me-123');
    expect(data.request_trace.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
    expect(job?.opts).toMatchObject({ attempts: 8, backoff: { type: 'exponential', delay: 2000 }, removeOnFail: { age: 30 * 86_400 } });
    expect((await h.store.get(res.body.id))?.intake).toBe('queued');
    expect(await h.store.pendingIds(new Date(Date.now() + 60_000), 100)).not.toContain(res.body.id);
    expect(data).not.toHaveProperty('submitter');
    expect(job?.data).not.toHaveProperty('submitter');
  });

  it('stores the confirmed submitter of a live request made through the consent page and puts it into the job', async () => {
    const principal = confirmedWriter();

    const res = await h.post(buildShopRequest(), { principal });

    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('submitter');
    const job = await h.intake.queue.getJob(res.body.id);
    expect(IntakeJob.parse(job?.data)).toMatchObject({ request_id: res.body.id, owner_id: principal.id, submitter: SUBMITTER });
    expect((await h.store.get(res.body.id))?.submitter).toEqual(SUBMITTER);
  });
});

describe('intake hand-over while the queue is unreachable', () => {
  let h: Harness;
  let deadConnection: Redis;
  beforeAll(async () => {
    deadConnection = createRedis(await closedRedisUrl(), 'api');
    deadConnection.on('error', () => undefined);
    const deadQueue = createIntakeQueue({ connection: deadConnection, prefix: '{dead}', attempts: 8, backoffMs: 2000, logger: testLogger() });
    h = await startHarness('intake-down', { intake: deadQueue });
  });
  afterAll(async () => {
    deadConnection?.disconnect();
    await h?.close();
  });

  it('keeps the request stored and pending, answers 201, and the reconciler queues it exactly once', async () => {
    const principal = liveWriter();

    const res = await h.post(buildShopRequest(), { principal });

    expect(res.status).toBe(201);
    expect((await h.store.get(res.body.id))?.intake).toBe('pending');
    expect(await jobTotal(h)).toBe(0);

    const reconciler = createReconciler({ store: h.store, intake: h.intake, quotas: h.quotas, logger: testLogger(), intervalMs: 60_000, minAgeMs: 0 });
    const first = await reconciler.runOnce();
    const second = await reconciler.runOnce();

    expect(first).toEqual({ enqueued: 1, dropped: 0, refunded: 0, failed: 0 });
    expect(second).toEqual({ enqueued: 0, dropped: 0, refunded: 0, failed: 0 });
    expect(await jobTotal(h)).toBe(1);
    const job = await h.intake.queue.getJob(res.body.id);
    expect(IntakeJob.parse(job?.data)).toMatchObject({ request_id: res.body.id, owner_id: principal.id });
    expect((await h.store.get(res.body.id))?.intake).toBe('queued');
  });

  it('queues a stored request again with its confirmed submitter when the reconciler finishes it', async () => {
    const res = await h.post(buildShopRequest(), { principal: confirmedWriter() });
    expect((await h.store.get(res.body.id))?.intake).toBe('pending');

    const reconciler = createReconciler({ store: h.store, intake: h.intake, quotas: h.quotas, logger: testLogger(), intervalMs: 60_000, minAgeMs: 0 });
    await reconciler.runOnce();

    const job = await h.intake.queue.getJob(res.body.id);
    expect(IntakeJob.parse(job?.data).submitter).toEqual(SUBMITTER);
  });

  it('re-adding a request that is already on the queue creates no second job', async () => {
    const res = await h.post(buildShopRequest(), { principal: liveWriter() });
    const record = await h.store.get(res.body.id);
    const before = await jobTotal(h);

    await h.intake.enqueue(IntakeJob.parse({ request_id: res.body.id, body: record!.body, result: record!.result, owner_id: record!.ownerId }));
    await h.intake.enqueue(IntakeJob.parse({ request_id: res.body.id, body: record!.body, result: record!.result, owner_id: record!.ownerId }));

    expect(await jobTotal(h)).toBe(before + 1);
  });
});

describe('a shop request that cannot be stored', () => {
  let h: Harness;
  let deadConnection: Redis;
  beforeAll(async () => {
    deadConnection = createRedis(await closedRedisUrl(), 'api');
    deadConnection.on('error', () => undefined);
    h = await startHarness('store-down', { store: createShopRequestStore(deadConnection, 'dead:') });
  });
  afterAll(async () => {
    deadConnection?.disconnect();
    await h?.close();
  });

  it('answers 503 service_unavailable with Retry-After when its Redis does not answer, queues nothing and gives the quota unit back', async () => {
    const principal = liveWriter();

    const res = await h.post(buildShopRequest(), { principal });

    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBeDefined();
    expect(await jobTotal(h)).toBe(0);
    const probe = await h.quotas.live.reserve(principal.id);
    expect(probe.state.remaining).toBe(4);
  });
});
