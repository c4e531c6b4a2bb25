import { INTAKE_JOB_VERSION, type IntakeJob, type ShopRequestBody } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { AcceptanceStepRefused } from '../domain/acceptance.js';
import type { StoredShopRequest } from '../store/shop-request-store.js';
import { handOver } from './hand-over.js';

const ID = 'req_00000000000000aa';

function buildRecord(): StoredShopRequest {
  return {
    result: {
      id: ID,
      status: 'received',
      sandbox: false,
      created_at: '2030-05-01T11:00:00.000Z',
      organization: 'TSV Musterstadt',
      shop_name: 'TSV Fanshop',
      shop_type: 'b2c',
      products: [],
      next_steps: 'Received.',
      warnings: [],
      upstream: null,
    },
    body: { shop_name: 'TSV Fanshop' } as ShopRequestBody,
    ownerId: 'msa_client_1',
    intake: 'pending',
    trace: { request_id: 'r-1', traceparent: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01' },
  };
}

/** The queue and the store's mark, each failing on demand, writing what happened in order. */
function buildDeps({ enqueueFails = false, markFails = false } = {}) {
  const steps: string[] = [];
  const jobs: IntakeJob[] = [];
  return {
    steps,
    jobs,
    deps: {
      intake: {
        async enqueue(job: IntakeJob) {
          if (enqueueFails) throw new Error('queue down');
          steps.push(`enqueue ${job.request_id}`);
          jobs.push(job);
        },
      },
      store: {
        async markQueued(id: string) {
          if (markFails) throw new Error('store down');
          steps.push(`mark ${id}`);
        },
      },
    },
  };
}

describe('handOver', () => {
  it('enqueues the whole record under its id first, then marks it queued', async () => {
    const { deps, steps, jobs } = buildDeps();
    const record = buildRecord();

    const handed = await handOver(deps, record);

    expect(handed).toEqual({ outcome: 'queued' });
    expect(steps).toEqual([`enqueue ${ID}`, `mark ${ID}`]);
    expect(jobs).toEqual([{ version: INTAKE_JOB_VERSION, request_id: ID, body: record.body, result: record.result, owner_id: 'msa_client_1', request_trace: record.trace }]);
  });

  it('puts the confirmed submitter stored with the request into the job', async () => {
    const { deps, jobs } = buildDeps();
    const submitter = { email: 'eva@tsv.example', client_id: 'msa_client_pub_1', client_name: 'Agent Desktop' };

    await handOver(deps, { ...buildRecord(), submitter });

    expect(jobs[0]?.submitter).toEqual(submitter);
  });

  it('puts the named quote beside the body, whose quote_id it leaves out for the previous worker', async () => {
    const { deps, jobs } = buildDeps();
    const quote = {
      quote_id: 'quo_0123456789abcdef',
      organization_type: 'verein',
      shop_type: 'b2c',
      currency: 'EUR',
      lines: [],
      total_net: 0,
      vat: 0,
      total_gross: 0,
      created_at: '2030-05-01T10:00:00.000Z',
      expires_at: '2030-05-31T10:00:00.000Z',
      warnings: [],
    } as const;
    const record = buildRecord();

    await handOver(deps, { ...record, body: { ...record.body, quote_id: quote.quote_id }, quote: { ...quote, lines: [], warnings: [] } });

    expect(jobs[0]?.quote).toMatchObject({ quote_id: quote.quote_id });
    expect(jobs[0]?.body).toEqual(record.body);
  });

  it('leaves the request unmarked when the enqueue fails, and says so instead of rejecting', async () => {
    const { deps, steps } = buildDeps({ enqueueFails: true });

    const handed = await handOver(deps, buildRecord());

    expect(handed).toMatchObject({ outcome: 'not_queued', err: new Error('queue down') });
    expect(steps).toEqual([]);
  });

  it('reports a job that is on the queue but not marked, so the caller knows a re-add is a no-op', async () => {
    const { deps, steps } = buildDeps({ markFails: true });

    const handed = await handOver(deps, buildRecord());

    expect(handed).toMatchObject({ outcome: 'not_marked', err: new Error('store down') });
    expect(steps).toEqual([`enqueue ${ID}`]);
  });

  it.each(['none', 'queued'] as const)('refuses a record whose intake says %s before it enqueues anything (the table queues stored live ones only)', async (intake) => {
    const { deps, steps } = buildDeps();

    await expect(handOver(deps, { ...buildRecord(), intake })).rejects.toBeInstanceOf(AcceptanceStepRefused);
    expect(steps).toEqual([]);
  });
});
