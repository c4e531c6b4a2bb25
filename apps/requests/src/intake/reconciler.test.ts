import { Writable } from 'node:stream';
import type { IntakeJob, ShopRequestBody, ShopRequestResult } from '@msa/contracts';
import { createLogger } from '@msa/service-kit';
import { testLogger } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';
import type { PendingClaim, ShopRequestStore, StoredShopRequest } from '../store/shop-request-store.js';
import { createReconciler } from './reconciler.js';

/** The store's contract in memory: records plus the pending ids with the time they were marked. */
function createFakeStore() {
  const records = new Map<string, StoredShopRequest>();
  const pending = new Map<string, number>();
  const claims = new Map<string, PendingClaim>();
  const store: ShopRequestStore = {
    async begin(id, claim) {
      pending.set(id, NOW.getTime() - 3_600_000);
      claims.set(id, claim);
    },
    async abandon(id) {
      const claim = records.has(id) ? undefined : claims.get(id);
      claims.delete(id);
      return claim ?? null;
    },
    async create(record) {
      if (record.intake === 'pending') pending.set(record.result.id, Date.parse(record.result.created_at));
      records.set(record.result.id, record);
    },
    async get(id) {
      return records.get(id) ?? null;
    },
    async markQueued(id) {
      const record = records.get(id);
      if (record) records.set(id, { ...record, intake: 'queued' });
      pending.delete(id);
    },
    async pendingIds(before, limit) {
      return [...pending.entries()]
        .filter(([, at]) => at <= before.getTime())
        .sort((a, b) => a[1] - b[1])
        .slice(0, limit)
        .map(([id]) => id);
    },
    async dropPending(id) {
      pending.delete(id);
    },
    async forget(id) {
      pending.delete(id);
      if (!records.has(id)) claims.delete(id);
    },
  };
  return { store, records, pending, claims };
}

/** Quota refunds, recorded as `mode owner day unit`. */
function createRefunds() {
  const refunds: string[] = [];
  const quota = (mode: string) => ({ refund: async (owner: string, day: string, unit: string) => void refunds.push(`${mode} ${owner} ${day} ${unit}`) });
  return {
    refunds,
    quotas: { live: quota('live'), sandbox: quota('sandbox'), sandboxPerAddress: quota('sandbox-address'), livePerDomain: quota('live-domain') },
  };
}

function buildRecord(id: string, createdAt: string, intake: StoredShopRequest['intake'] = 'pending'): StoredShopRequest {
  const result: ShopRequestResult = {
    id,
    status: 'received',
    sandbox: false,
    created_at: createdAt,
    organization: 'TSV Musterstadt',
    shop_name: 'TSV Fanshop',
    shop_type: 'b2c',
    products: [],
    next_steps: 'Received.',
    warnings: [],
    upstream: null,
  };
  const body = {
    organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Eva', email: 'eva@tsv.example' },
    shop_name: 'TSV Fanshop',
    design_service: true,
    password_protection: false,
    private_shop: false,
    customer_account: false,
  } as ShopRequestBody;
  return { result, body, ownerId: 'msa_client_1', intake, trace: { request_id: 'r-1' } };
}

const NOW = new Date('2030-05-01T12:00:00Z');

describe('reconciler', () => {
  it('enqueues every pending request old enough and marks it queued', async () => {
    const { store, records, pending } = createFakeStore();
    await store.create(buildRecord('req_000000000000000a', '2030-05-01T11:00:00.000Z'));
    await store.create(buildRecord('req_000000000000000b', '2030-05-01T11:30:00.000Z'));
    const jobs: IntakeJob[] = [];
    const reconciler = createReconciler({
      store,
      intake: { enqueue: async (job) => void jobs.push(job) },
      quotas: createRefunds().quotas,
      logger: testLogger(),
      intervalMs: 1000,
      now: () => NOW,
    });

    const report = await reconciler.runOnce();

    expect(report).toEqual({ enqueued: 2, dropped: 0, refunded: 0, failed: 0 });
    expect(jobs.map((j) => j.request_id)).toEqual(['req_000000000000000a', 'req_000000000000000b']);
    expect(jobs[0]).toMatchObject({ owner_id: 'msa_client_1', request_trace: { request_id: 'r-1' } });
    expect(records.get('req_000000000000000a')?.intake).toBe('queued');
    expect(pending.size).toBe(0);
  });

  it('leaves a request alone while its own POST may still be enqueueing it', async () => {
    const { store, pending } = createFakeStore();
    await store.create(buildRecord('req_000000000000000a', '2030-05-01T11:59:58.000Z'));
    const jobs: IntakeJob[] = [];
    const reconciler = createReconciler({
      store,
      intake: { enqueue: async (job) => void jobs.push(job) },
      quotas: createRefunds().quotas,
      logger: testLogger(),
      intervalMs: 1000,
      minAgeMs: 10_000,
      now: () => NOW,
    });

    await reconciler.runOnce();

    expect(jobs).toEqual([]);
    expect(pending.has('req_000000000000000a')).toBe(true);
  });

  it('drops a pending id whose record was never written', async () => {
    const { store, pending } = createFakeStore();
    pending.set('req_000000000000000c', Date.parse('2030-05-01T11:00:00Z'));
    const reconciler = createReconciler({
      store,
      intake: { enqueue: async () => expect.unreachable('nothing to enqueue') },
      quotas: createRefunds().quotas,
      logger: testLogger(),
      intervalMs: 1000,
      now: () => NOW,
    });

    const report = await reconciler.runOnce();

    expect(report).toEqual({ enqueued: 0, dropped: 1, refunded: 0, failed: 0 });
    expect(pending.size).toBe(0);
  });

  it('gives back the quota units of a request that was begun but never stored, its domain\'s and address\'s too, and logs a warning', async () => {
    const { store, pending, claims } = createFakeStore();
    await store.begin('req_00000000000000e1', { ownerId: 'msa_client_1', day: '2030-05-01', mode: 'live', domain: 'd1' });
    await store.begin('req_00000000000000e2', { ownerId: 'anon:203.0.113.9', day: '2030-05-01', mode: 'sandbox', address: '4:203.0.113.9' });
    const { refunds, quotas } = createRefunds();
    const lines: Array<{ level: string; msg: string; shopRequestId?: string }> = [];
    const logger = createLogger({
      service: 'requests',
      level: 'warn',
      destination: new Writable({ write: (chunk: Buffer, _enc, done) => done(void lines.push(JSON.parse(chunk.toString()))) }),
    });
    const reconciler = createReconciler({
      store,
      intake: { enqueue: async () => expect.unreachable('nothing to enqueue') },
      quotas,
      logger,
      intervalMs: 1000,
      now: () => NOW,
    });

    const report = await reconciler.runOnce();

    expect(report).toEqual({ enqueued: 0, dropped: 2, refunded: 2, failed: 0 });
    expect(refunds.sort()).toEqual([
      'live msa_client_1 2030-05-01 req_00000000000000e1',
      'live-domain d1 2030-05-01 req_00000000000000e1',
      'sandbox-address 4:203.0.113.9 2030-05-01 req_00000000000000e2',
      'sandbox anon:203.0.113.9 2030-05-01 req_00000000000000e2',
    ].sort());
    expect(pending.size).toBe(0);
    expect(claims.size).toBe(0);
    expect(lines.filter((l) => l.msg.includes('never stored')).map((l) => [l.level, l.shopRequestId]).sort()).toEqual([
      ['warn', 'req_00000000000000e1'],
      ['warn', 'req_00000000000000e2'],
    ]);
  });

  it('drops a pending id that is already queued without enqueueing it again', async () => {
    const { store, pending } = createFakeStore();
    await store.create(buildRecord('req_000000000000000d', '2030-05-01T11:00:00.000Z', 'queued'));
    pending.set('req_000000000000000d', Date.parse('2030-05-01T11:00:00Z'));
    let calls = 0;
    const reconciler = createReconciler({
      store,
      intake: { enqueue: async () => void calls++ },
      quotas: createRefunds().quotas,
      logger: testLogger(),
      intervalMs: 1000,
      now: () => NOW,
    });

    await reconciler.runOnce();

    expect(calls).toBe(0);
    expect(pending.size).toBe(0);
  });

  it('keeps requests pending when the queue is down and counts the failure', async () => {
    const { store, records, pending } = createFakeStore();
    await store.create(buildRecord('req_000000000000000a', '2030-05-01T11:00:00.000Z'));
    await store.create(buildRecord('req_000000000000000b', '2030-05-01T11:10:00.000Z'));
    let failures = 0;
    const reconciler = createReconciler({
      store,
      intake: {
        enqueue: async () => {
          throw new Error('queue down');
        },
      },
      quotas: createRefunds().quotas,
      logger: testLogger(),
      intervalMs: 1000,
      now: () => NOW,
      onEnqueueFailure: () => failures++,
    });

    const report = await reconciler.runOnce();

    expect(report).toEqual({ enqueued: 0, dropped: 0, refunded: 0, failed: 1 });
    expect(failures).toBe(1);
    expect(pending.size).toBe(2);
    expect(records.get('req_000000000000000a')?.intake).toBe('pending');
  });

  it('works through more pending requests than one batch', async () => {
    const { store, pending } = createFakeStore();
    for (let i = 0; i < 7; i++) {
      await store.create(buildRecord(`req_${i.toString(16).padStart(16, '0')}`, `2030-05-01T11:0${i}:00.000Z`));
    }
    const jobs: IntakeJob[] = [];
    const reconciler = createReconciler({
      store,
      intake: { enqueue: async (job) => void jobs.push(job) },
      quotas: createRefunds().quotas,
      logger: testLogger(),
      intervalMs: 1000,
      batchSize: 3,
      now: () => NOW,
    });

    const report = await reconciler.runOnce();

    expect(report.enqueued).toBe(7);
    expect(new Set(jobs.map((j) => j.request_id)).size).toBe(7);
    expect(pending.size).toBe(0);
  });
});
