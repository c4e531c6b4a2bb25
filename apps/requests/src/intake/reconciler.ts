// Finds live shop requests that were stored but never made it onto the intake
// queue (Redis hiccup, crash between the two steps) and enqueues them. The
// job id is the request id, so a request enqueued twice is processed once.
// It finishes what a POST left (acceptance.ts): a stored live request takes
// the `queue` step, a claim never stored the `abandon` step, and every other
// id leaves the pending set.
import type { Logger } from '@msa/service-kit';
import { acceptanceOfStored, mayTake } from '../domain/acceptance.js';
import type { DailyQuota } from '@msa/service-kit/limits';
import { refundClaim, type ShopRequestQuotas } from '../store/shop-request-quotas.js';
import type { ShopRequestStore } from '../store/shop-request-store.js';
import { handOver } from './hand-over.js';
import type { IntakeQueue } from './intake-queue.js';

export interface ReconcilerOptions {
  store: ShopRequestStore;
  intake: Pick<IntakeQueue, 'enqueue'>;
  /** To give back the quota units of a request that was begun but never stored. */
  quotas: Record<keyof ShopRequestQuotas, Pick<DailyQuota, 'refund'>>;
  logger: Logger;
  intervalMs: number;
  /**
   * Requests younger than this are left alone: their own POST may still be
   * between storing and enqueueing.
   */
  minAgeMs?: number;
  batchSize?: number;
  now?: () => Date;
  onEnqueueFailure?: () => void;
}

export interface ReconcileReport {
  enqueued: number;
  dropped: number;
  /** Begun but never stored: dropped, and their quota units given back. */
  refunded: number;
  failed: number;
}

export interface Reconciler {
  runOnce(): Promise<ReconcileReport>;
  /** Runs once now, then every `intervalMs`. */
  start(): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function createReconciler({
  store,
  intake,
  quotas,
  logger,
  intervalMs,
  minAgeMs = 30_000,
  batchSize = 100,
  now = () => new Date(),
  onEnqueueFailure,
}: ReconcilerOptions): Reconciler {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<ReconcileReport> | undefined;

  async function reconcile(): Promise<ReconcileReport> {
    const report: ReconcileReport = { enqueued: 0, dropped: 0, refunded: 0, failed: 0 };
    const before = new Date(now().getTime() - minAgeMs);
    for (;;) {
      const ids = await store.pendingIds(before, batchSize);
      let progressed = 0;
      for (const id of ids) {
        const record = await store.get(id);
        if (!record) {
          // Begun, never stored: its POST failed, its process died, or it is
          // slower than minAgeMs. Giving the claim up (the `abandon` step,
          // which the store refuses unless the id is claimed) stops a slow
          // POST from storing it later; whatever unit it reserved goes back
          // (a refund of none is a no-op), its owner's and its address's or domain's.
          const claim = await store.abandon(id);
          if (claim) {
            await refundClaim(quotas, claim, id);
            report.refunded += 1;
            logger.warn({ shopRequestId: id, owner: claim.ownerId, day: claim.day, mode: claim.mode }, 'shop request begun but never stored; quota unit refunded');
          }
          await store.dropPending(id);
          report.dropped += 1;
          progressed += 1;
          continue;
        }
        const { state, mode } = acceptanceOfStored(record.intake);
        if (!mayTake('queue', state, mode)) {
          // Queued already, or a sandbox request, finished once stored.
          await store.dropPending(id);
          report.dropped += 1;
          progressed += 1;
          continue;
        }
        const handed = await handOver({ intake, store }, record);
        if (handed.outcome === 'not_queued') {
          // The queue is down: the rest would fail the same way; next run.
          report.failed += 1;
          onEnqueueFailure?.();
          logger.warn({ err: handed.err, shopRequestId: id }, 'reconciler could not enqueue a shop request');
          return report;
        }
        // Redis failed under the store: this run ends; the next one re-adds (a no-op) and marks it.
        if (handed.outcome === 'not_marked') throw handed.err;
        report.enqueued += 1;
        progressed += 1;
        logger.info({ shopRequestId: id }, 'reconciler enqueued a shop request');
      }
      if (ids.length < batchSize || progressed === 0) return report;
    }
  }

  function runOnce(): Promise<ReconcileReport> {
    // One run at a time per process; a tick that finds one running joins it.
    running ??= reconcile().finally(() => {
      running = undefined;
    });
    return running;
  }

  function tick() {
    runOnce().catch((err: unknown) => logger.warn({ err }, 'reconciler run failed'));
  }

  return {
    runOnce,
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}
