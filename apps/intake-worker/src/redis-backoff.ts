/*
 * Keeps a worker whose Redis keeps failing from spinning. BullMQ fetches
 * again at once after an error that is not a lost connection (MOVED from the
 * wrong node, CLUSTERDOWN, NOAUTH, OOM): tens of thousands of rejected
 * commands a second, and a worker that still calls itself ready. Here the
 * first such error of any of the process's workers (intake and mail share
 * one Redis) pauses them all, and a check runs after a delay that doubles up
 * to a cap; they resume when a check passes.
 */
import { isRedisUnavailable, type Logger } from '@msa/service-kit';
import type { Worker } from 'bullmq';
import { ReplyError } from 'ioredis';

export interface RedisBackoffOptions {
  workers: Worker[];
  /** Resolves when Redis serves the queue again; rejects with the reason otherwise. */
  check: () => Promise<unknown>;
  logger: Logger;
  firstDelayMs: number;
  maxDelayMs: number;
}

export interface RedisBackoff {
  /** The error that paused the worker, or null while it works. */
  readonly failure: Error | null;
  /** Cancels a pending check; call before closing the worker. */
  stop(): void;
}

/** Delay before the check after `attempt` failed ones: first, 2 × first, 4 × first, … capped. */
export function backoffDelay(attempt: number, firstDelayMs: number, maxDelayMs: number): number {
  return Math.min(firstDelayMs * 2 ** Math.max(0, attempt), maxDelayMs);
}

/**
 * An error Redis gave (any reply error) or the absence of Redis; not an
 * error of BullMQ's own bookkeeping (a lost job lock), which a pause would
 * not fix.
 */
export function isRedisFailure(err: unknown): boolean {
  return err instanceof ReplyError || isRedisUnavailable(err);
}

export function createRedisBackoff(opts: RedisBackoffOptions): RedisBackoff {
  const { workers, logger } = opts;
  let failure: Error | null = null;
  let failedChecks = 0;
  let pausedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const scheduleCheck = (): number => {
    const delayMs = backoffDelay(failedChecks, opts.firstDelayMs, opts.maxDelayMs);
    timer = setTimeout(() => void check(), delayMs);
    return delayMs;
  };

  async function check(): Promise<void> {
    if (stopped) return;
    try {
      await opts.check();
    } catch (err) {
      if (stopped) return;
      failedChecks++;
      const retryInMs = scheduleCheck();
      // One line per check: the doubling delay bounds them.
      logger.warn({ err, failedChecks, retryInMs }, 'Redis still fails; the intake worker stays paused');
      return;
    }
    if (stopped) return;
    logger.info({ pausedMs: Date.now() - pausedAt, failedChecks }, 'Redis works again; the intake worker resumed');
    failure = null;
    failedChecks = 0;
    await Promise.all(workers.map((worker) => worker.resume()));
  }

  const onError = (err: Error) => {
    if (failure || stopped || !isRedisFailure(err)) return;
    failure = err;
    pausedAt = Date.now();
    // Without waiting for running jobs: they finish or fail on their own,
    // and waiting could take as long as Redis stays broken.
    for (const worker of workers) {
      worker.pause(true).catch((pauseErr: unknown) => logger.warn({ err: pauseErr, queue: worker.name }, 'worker did not pause'));
    }
    const retryInMs = scheduleCheck();
    logger.error({ err, retryInMs }, 'Redis fails; the intake worker paused until it works again');
  };
  for (const worker of workers) worker.on('error', onError);

  return {
    get failure() {
      return failure;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
