// What a requests process that dies mid-request leaves behind, and how the
// service completes it: the states below are the ones its own steps write
// (begin, reserve) before the kill. The drills in packages/drills kill real
// processes; these pin each recovery step.
import { utcDay } from '@msa/service-kit';
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
    expect(await h.store.claimOf('req_00000000000dead1')).toBeNull();
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
