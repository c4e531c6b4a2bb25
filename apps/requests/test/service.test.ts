import { CatalogEnv, startService as startCatalog } from '@msa/catalog';
import { IntakeJob, type ShopRequestBody } from '@msa/contracts';
import { loadConfig, type RunningService } from '@msa/service-kit';
import { createRedis } from '@msa/service-kit/redis';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, createTestRedis, deleteByPattern, internalHeaders, testLogger, type TestRedis } from '@msa/test-kit';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RequestsEnv, startService } from '../src/index.js';
import { createShopRequestStore } from '../src/store/shop-request-store.js';
import { buildShopRequest, liveWriter } from './support.js';

let tr: TestRedis;
let catalog: RunningService;
let service: RunningService | undefined;
let queueConnection: Redis;
let queue: Queue<IntakeJob>;
const ORPHAN_ID = 'req_00000000000000aa';

beforeAll(async () => {
  tr = await createTestRedis('requests-service');
  catalog = await startCatalog(
    loadConfig(CatalogEnv, { CATALOG_PORT: '0', CATALOG_ADMIN_PORT: '0', INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'silent' }),
    { logger: testLogger('catalog') },
  );
  const queuePrefix = `{${tr.prefix}intake}`;
  queueConnection = createRedis(tr.url, 'api');
  queue = new Queue<IntakeJob>('intake', { connection: queueConnection, prefix: queuePrefix });

  // A live request stored a minute ago whose enqueue never happened (a crash in between).
  const body = {
    organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max', email: 'max@muster.example' },
    shop_name: 'Muster Team',
    design_service: true,
    password_protection: false,
    private_shop: false,
    customer_account: false,
  } as ShopRequestBody;
  await createShopRequestStore(tr.redis, tr.prefix).create({
    result: {
      id: ORPHAN_ID,
      status: 'received',
      sandbox: false,
      created_at: new Date(Date.now() - 60_000).toISOString(),
      organization: 'Muster GmbH',
      shop_name: 'Muster Team',
      shop_type: 'b2b',
      products: [],
      next_steps: 'Received.',
      warnings: [],
      upstream: null,
    },
    body,
    ownerId: 'msa_client_orphan',
    intake: 'pending',
    trace: {},
  });

  const config = loadConfig(RequestsEnv, {
    REQUESTS_PORT: '0',
    REQUESTS_ADMIN_PORT: '0',
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'silent',
    REDIS_URL: tr.url,
    REDIS_KEY_PREFIX: tr.prefix,
    QUEUE_PREFIX: queuePrefix,
    CATALOG_URL: catalog.url,
    RECONCILE_INTERVAL_MS: '60000',
    INTAKE_ATTEMPTS: '3',
    INTAKE_BACKOFF_MS: '500',
  });
  service = await startService(config, { logger: testLogger('requests') });
});

afterAll(async () => {
  await service?.close();
  await queue?.close();
  queueConnection?.disconnect();
  await catalog?.close();
  await deleteByPattern(tr.redis, `{${tr.prefix}*`);
  await tr?.cleanup();
});

describe('startService', () => {
  it('enqueues a stored live request left pending by an earlier process when it starts', async () => {
    await vi.waitFor(async () => expect(await queue.getJob(ORPHAN_ID)).toBeTruthy(), { timeout: 10_000, interval: 100 });

    const job = await queue.getJob(ORPHAN_ID);
    expect(IntakeJob.parse(job?.data).owner_id).toBe('msa_client_orphan');
    await vi.waitFor(async () => expect((await createShopRequestStore(tr.redis, tr.prefix).get(ORPHAN_ID))?.intake).toBe('queued'));
  });

  it('answers /healthz and /readyz', async () => {
    const health = await fetch(`${service!.url}/healthz`);
    const ready = await fetch(`${service!.url}/readyz`);

    expect(health.status).toBe(200);
    expect(ready.status).toBe(200);
  });

  it('accepts a live shop request over HTTP, queues it with the configured job options, and counts it in /metrics', async () => {
    const res = await fetch(`${service!.url}/v1/shop-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...internalHeaders('requests', { principal: liveWriter(), sandbox: false }) },
      body: JSON.stringify(buildShopRequest()),
    });
    const created = (await res.json()) as { id: string };
    const metrics = await (await fetch(`${service!.adminUrl}/metrics`)).text();

    expect(res.status).toBe(201);
    const job = await queue.getJob(created.id);
    expect(job?.opts).toMatchObject({ attempts: 3, backoff: { type: 'exponential', delay: 500 }, removeOnComplete: { age: 86_400 } });
    expect(metrics).toMatch(/shop_requests_total\{[^}]*mode="live"[^}]*outcome="created"[^}]*\} 1/);
    expect(metrics).toContain('shop_request_enqueue_failures_total');
  });

  it('stops listening when closed', async () => {
    const url = service!.url;

    await service!.close();
    service = undefined;

    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
