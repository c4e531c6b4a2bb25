/*
 * The second BullMQ worker of this process: it takes the `mail` queue
 * (today the consent page's one-time codes, added by identity) beside the
 * intake worker, with its own small concurrency, and shares the process's
 * Redis connection, mailer, SMTP pool and shutdown.
 */
import { MAIL_QUEUE, type ConsentCodeMailJob } from '@msa/contracts';
import type { Job, Worker } from 'bullmq';
import { traceFields } from './intake/trace-fields.js';
import type { MailJobOutcome } from './mail-jobs/run-mail-job.js';
import { createQueueWorker, type QueueWorkerOptions } from './queue-worker.js';

export interface MailWorkerOptions extends QueueWorkerOptions {
  process: (job: Job) => Promise<MailJobOutcome>;
}

export function createMailWorker(opts: MailWorkerOptions): Worker<ConsentCodeMailJob, MailJobOutcome> {
  return createQueueWorker<ConsentCodeMailJob, MailJobOutcome>(
    {
      queue: MAIL_QUEUE,
      // A sent code is of no use to keep, and a failed job's sealed code is
      // kept an hour for the operator.
      removeOnComplete: { count: 0 },
      removeOnFail: { age: 3600 },
      // The job's data is never logged: only its kind, language and trace.
      describe: (job) => {
        const data = job?.data as Partial<ConsentCodeMailJob> | undefined;
        return { kind: typeof data?.kind === 'string' ? data.kind : undefined, ...traceFields(data) };
      },
      words: {
        error: 'mail worker error',
        stalled: 'mail job stalled; its worker stopped answering, it runs again',
        retrying: 'mail attempt failed; retrying',
        failedForGood: 'mail job failed for good',
      },
    },
    opts,
  );
}
