// What a requests process that dies mid-request leaves behind, and how the
// service completes it: the states below are the ones its own steps write
// (begin, reserve) before the kill. The drills in tooling/drills kill real
// processes; these pin each recovery step.
import { ShopRequestBody } from '@msa/contracts';
import { utcDay } from '@msa/service-kit/limits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReconciler } from '../src/intake/reconciler.js';
import { buildShopRequest, liveWriter, startHarness, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('crash-recovery');
});
afterAll(async () => {
  await h?.close();
});

/** The stalled POST's last step: storing its record. */
async function storeLate(harness: Harness, ownerId: string): Promise<string> {
  const record = {
    result: {
      id: 'req_00000000000051ee',
      status: 'received' as const,
      sandbox: false,
      created_at: new Date().toISOString(),
      organization: 'TSV Musterstadt',
      shop_name: 'TSV Fanshop',
      shop_type: 'b2c' as const,
      products: [],
      next_steps: 'Received.',
      warnings: [],
      upstream: null,
    },
    body: ShopRequestBody.parse(buildShopRequest({ products: [], design_service: true })),
    ownerId,
    intake: 'pending' as const,
    trace: {},
  };
  return harness.store.create(record).then(
    () => 'stored',
    (err: Error) => err.name,
  );
}

const reconcilerOf = (harness: Harness) =>
  createReconciler({ store: harness.store, intake: harness.intake, quotas: harness.quotas, logger: harness.logger, intervalMs: 60_000, minAgeMs: 0 });

describe('a shop request whose process died between reserving its quota unit and storing it', () => {
  it('gets its unit back from the reconciler, so the owner’s next request is accepted', async () => {
    const principal = liveWriter();
    for (let i = 0; i < 4; i++) expect((await h.post(buildShopRequest({ notes: `n${i}` }), { principal })).status).toBe(201);
    // The dead request's own steps: claim, then the unit.
    const now = new Date();
    await h.store.begin('req_00000000000dead1', { ownerId: principal.id, day: utcDay(now), mode: 'live' });
    expect((await h.quotas.live.reserve(principal.id, now, 'req_00000000000dead1')).allowed).toBe(true);
    const refused = await h.post(buildShopRequest({ notes: 'over' }), { principal });

    const report = await reconcilerOf(h).runOnce();
    const accepted = await h.post(buildShopRequest({ notes: 'after refund' }), { principal });

    expect(refused.status).toBe(429);
    expect(report.refunded).toBe(1);
    expect(accepted.status).toBe(201);
    expect(await h.store.abandon('req_00000000000dead1')).toBeNull();
    expect(await h.quotas.live.used(principal.id)).toBe(5);
  });

  it('leaves stored requests and their units alone', async () => {
    const principal = liveWriter();
    const created = await h.post(buildShopRequest(), { principal });

    await reconcilerOf(h).runOnce();

    expect(created.status).toBe(201);
    expect(await h.store.get(created.body.id)).not.toBeNull();
    expect(await h.quotas.live.used(principal.id)).toBe(1);
  });
});

describe('a shop request slower than the reconciler’s minimum age', () => {
  it('is not stored once the reconciler gave its claim up and refunded its unit, and its retry under the same id is', async () => {
    const principal = liveWriter();
    const now = new Date();
    // A POST that got as far as its unit, then stalled past RECONCILE_MIN_AGE_MS.
    await h.store.begin('req_00000000000051ee', { ownerId: principal.id, day: utcDay(now), mode: 'live' });
    await h.quotas.live.reserve(principal.id, now, 'req_00000000000051ee');
    await reconcilerOf(h).runOnce();
    const late = await storeLate(h, principal.id);

    await h.store.begin('req_00000000000051ee', { ownerId: principal.id, day: utcDay(now), mode: 'live' });
    const retried = await storeLate(h, principal.id);

    expect(late).toBe('ClaimAbandonedError');
    expect(retried).toBe('stored');
    expect(await h.store.get('req_00000000000051ee')).not.toBeNull();
    expect(await h.quotas.live.used(principal.id)).toBe(0);
  });
});

describe('a shop request retried with the same Idempotency-Key', () => {
  it('counts one quota unit however often the request is retried', async () => {
    const principal = liveWriter();
    const body = buildShopRequest({ notes: 'retried' });

    const first = await h.post(body, { principal, idempotencyKey: 'retry-me' });
    await h.post(body, { principal, idempotencyKey: 'retry-me' });
    await h.post(body, { principal, idempotencyKey: 'retry-me' });

    expect(first.status).toBe(201);
    expect(await h.quotas.live.used(principal.id)).toBe(1);
  });
});
