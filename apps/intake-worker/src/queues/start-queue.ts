/*
 * The one way this process runs a BullMQ queue: the intake queue and the
 * mail queue differ only in their name, their removal options, what of a
 * job's data a log line may show, and their words; the error, stall and
 * failure handling (a retry is a warning, a final failure an error and a
 * count; no address in either) is written once here.
 */
import type { Logger, RedisClient } from '@msa/service-kit';
import { throttledLog } from '@msa/service-kit/redis';
import { Worker, type Job, type KeepJobs } from 'bullmq';
import type { Counter } from 'prom-client';
import { withoutAddresses } from './without-addresses.js';

export interface QueueWorkerOptions {
  connection: RedisClient;
  prefix: string;
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  logger: Logger;
  process: (job: Job) => Promise<unknown>;
  counters?: { completed: Counter; failed: Counter; retried: Counter };
}

export interface QueueWorkerSpec<Data> {
  queue: string;
  /** For jobs added without their own removal options. */
  removeOnComplete: KeepJobs;
  removeOnFail?: KeepJobs;
  /** What a log line about a job may show of it; never personal data. */
  describe: (job: Job<Data> | undefined) => Record<string, unknown>;
  words: { error: string; stalled: string; retrying: string; failedForGood: string };
}

/**
 * Whether the job now sits in the failed set: BullMQ stamps `finishedOn` only
 * then (not when it schedules a retry); a job that stalled too often or
 * threw UnrecoverableError ends there with attempts left.
 */
function isFinalFailure(job: Job, err: Error): boolean {
  return Boolean(job.finishedOn) || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
}

export function createQueueWorker<Data, Result>(spec: QueueWorkerSpec<Data>, opts: QueueWorkerOptions): Worker<Data, Result> {
  const { logger } = opts;
  // What a job throws becomes its failedReason and stacktrace (kept for weeks,
  // shown by the queue UI and retry-failed) and the error of the log line.
  const run = async (job: Job<Data>): Promise<Result> => {
    try {
      return (await opts.process(job)) as Result;
    } catch (err) {
      throw withoutAddresses(err);
    }
  };
  const worker = new Worker<Data, Result>(spec.queue, run, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDuration,
    stalledInterval: opts.stalledInterval,
    removeOnComplete: spec.removeOnComplete,
    ...(spec.removeOnFail ? { removeOnFail: spec.removeOnFail } : {}),
  });

  // BullMQ repeats its connection errors while Redis is away.
  const workerError = throttledLog(logger, 'error', spec.words.error);
  worker.on('error', (err) => workerError({ err }));
  worker.on('completed', () => opts.counters?.completed.inc());
  worker.on('stalled', (jobId) => logger.warn({ jobId, queue: spec.queue }, spec.words.stalled));
  worker.on('failed', (job, err) => {
    const line = { err, jobId: job?.id, queue: spec.queue, ...spec.describe(job), attempts: job?.attemptsMade, maxAttempts: job?.opts.attempts ?? 1 };
    if (!job || isFinalFailure(job, err)) {
      opts.counters?.failed.inc();
      logger.error(line, spec.words.failedForGood);
    } else {
      opts.counters?.retried.inc();
      logger.warn(line, spec.words.retrying);
    }
  });
  return worker;
}
