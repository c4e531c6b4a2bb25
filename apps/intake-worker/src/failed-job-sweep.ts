/*
 * Removes failed jobs older than their age from a queue, once at start and
 * then at an interval. BullMQ trims the failed set by age only when another
 * job fails (the failing job's `removeOnFail`), so after a burst of failures
 * and none since, failed jobs (each holding a whole shop request) would
 * outlive their age; jobs failed under earlier versions, kept forever, go
 * the same way.
 */
import type { Logger } from '@msa/service-kit';
import type { Queue } from 'bullmq';

export interface FailedJobSweep {
  /** Removes what is due now; resolves with how many jobs went. */
  runOnce(): Promise<number>;
  /** Sweeps now, then every `intervalMs`. */
  start(): void;
  stop(): void;
}

export interface FailedJobSweepOptions {
  queue: Queue;
  maxAgeSeconds: number;
  intervalMs: number;
  logger: Logger;
}

/** Jobs removed per call: one call stays short however many are due. */
const BATCH = 1_000;

export function createFailedJobSweep({ queue, maxAgeSeconds, intervalMs, logger }: FailedJobSweepOptions): FailedJobSweep {
  async function runOnce(): Promise<number> {
    let removed = 0;
    for (;;) {
      const ids = await queue.clean(maxAgeSeconds * 1000, BATCH, 'failed');
      removed += ids.length;
      if (ids.length < BATCH) return removed;
    }
  }

  let timer: NodeJS.Timeout | undefined;
  const sweep = () => {
    runOnce().then(
      (removed) => {
        if (removed) logger.info({ queue: queue.name, removed }, 'failed jobs past their age removed');
      },
      // Redis failing is reported by the workers; the next sweep catches up.
      (err: unknown) => logger.warn({ err, queue: queue.name }, 'failed jobs could not be swept'),
    );
  };
  return {
    runOnce,
    start() {
      sweep();
      timer = setInterval(sweep, intervalMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
    },
  };
}
