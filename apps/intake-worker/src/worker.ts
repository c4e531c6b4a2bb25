import { INTAKE_QUEUE, type IntakeJob } from '@msa/contracts';
import type { Logger, RedisClient } from '@msa/service-kit';
import { throttledLog } from '@msa/service-kit/redis';
import { Worker, type Job } from 'bullmq';
import type { Counter } from 'prom-client';
import type { IntakeOutcome } from './intake/run-intake.js';
import { traceFields } from './intake/trace-fields.js';

export interface IntakeWorkerOptions {
  connection: RedisClient;
  prefix: string;
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  logger: Logger;
  process: (job: Job) => Promise<IntakeOutcome>;
  counters?: { completed: Counter; failed: Counter; retried: Counter };
}

/**
 * Whether the job now sits in the failed set: BullMQ stamps `finishedOn` only
 * then (not when it schedules a retry); a job that stalled too often or
 * threw UnrecoverableError ends there with attempts left.
 */
export function isFinalFailure(job: Job, err: Error): boolean {
  return Boolean(job.finishedOn) || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
}

export function createIntakeWorker(opts: IntakeWorkerOptions): Worker<IntakeJob, IntakeOutcome> {
  const { logger } = opts;
  const worker = new Worker<IntakeJob, IntakeOutcome>(INTAKE_QUEUE, (job) => opts.process(job), {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDuration,
    stalledInterval: opts.stalledInterval,
    // Producers set their own removal options; these apply to jobs added without.
    // 24 hours as the producer's (README): a count as well would cut that short
    // under load and cost every completion one more range read.
    removeOnComplete: { age: 24 * 3600 },
  });

  // BullMQ repeats its connection errors while Redis is away.
  const workerError = throttledLog(logger, 'error', 'intake worker error');
  worker.on('error', (err) => workerError({ err }));
  worker.on('completed', () => opts.counters?.completed.inc());
  worker.on('stalled', (jobId) => logger.warn({ jobId }, 'intake job stalled; its worker stopped answering, it runs again'));
  worker.on('failed', (job, err) => {
    const line = {
      err,
      jobId: job?.id,
      shopRequestId: job?.id,
      ...traceFields(job?.data as Partial<IntakeJob> | undefined),
      attempts: job?.attemptsMade,
      maxAttempts: job?.opts.attempts ?? 1,
    };
    if (!job || isFinalFailure(job, err)) {
      opts.counters?.failed.inc();
      logger.error(line, 'intake job failed for good; it stays in the failed set (retry-failed re-queues it)');
    } else {
      opts.counters?.retried.inc();
      logger.warn(line, 'intake attempt failed; retrying');
    }
  });
  return worker;
}
