/*
 * The second BullMQ worker of this process: it takes the `mail` queue
 * (today the consent page's one-time codes, added by identity) beside the
 * intake worker, with its own small concurrency, and shares the process's
 * Redis connection, mailer, SMTP pool and shutdown.
 */
import { MAIL_QUEUE, type ConsentCodeMailJob } from '@msa/contracts';
import type { Logger, RedisClient } from '@msa/service-kit';
import { throttledLog } from '@msa/service-kit/redis';
import { Worker, type Job } from 'bullmq';
import type { Counter } from 'prom-client';
import { traceFields } from './intake/trace-fields.js';
import type { MailJobOutcome } from './mail-jobs/run-mail-job.js';
import { isFinalFailure } from './worker.js';

export interface MailWorkerOptions {
  connection: RedisClient;
  prefix: string;
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  logger: Logger;
  process: (job: Job) => Promise<MailJobOutcome>;
  counters?: { completed: Counter; failed: Counter; retried: Counter };
}

export function createMailWorker(opts: MailWorkerOptions): Worker<ConsentCodeMailJob, MailJobOutcome> {
  const { logger } = opts;
  const worker = new Worker<ConsentCodeMailJob, MailJobOutcome>(MAIL_QUEUE, (job) => opts.process(job), {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDuration,
    stalledInterval: opts.stalledInterval,
    // For jobs added without their own options: a sent code is of no use to
    // keep, and a failed job's sealed code is kept an hour for the operator.
    removeOnComplete: { count: 0 },
    removeOnFail: { age: 3600 },
  });

  const workerError = throttledLog(logger, 'error', 'mail worker error');
  worker.on('error', (err) => workerError({ err }));
  worker.on('completed', () => opts.counters?.completed.inc());
  worker.on('stalled', (jobId) => logger.warn({ jobId, queue: MAIL_QUEUE }, 'mail job stalled; its worker stopped answering, it runs again'));
  worker.on('failed', (job, err) => {
    // The job's data is never logged: only its kind, language and trace.
    const data = job?.data as Partial<ConsentCodeMailJob> | undefined;
    const line = {
      err,
      jobId: job?.id,
      queue: MAIL_QUEUE,
      kind: typeof data?.kind === 'string' ? data.kind : undefined,
      ...traceFields(data),
      attempts: job?.attemptsMade,
      maxAttempts: job?.opts.attempts ?? 1,
    };
    if (!job || isFinalFailure(job, err)) {
      opts.counters?.failed.inc();
      logger.error(line, 'mail job failed for good');
    } else {
      opts.counters?.retried.inc();
      logger.warn(line, 'mail attempt failed; retrying');
    }
  });
  return worker;
}
