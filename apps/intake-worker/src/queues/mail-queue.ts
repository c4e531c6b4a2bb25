/*
 * The second queue of this process: `mail` (today the consent page's
 * one-time codes, added by identity), beside the intake queue, with its own
 * small concurrency; it shares the process's Redis connection, mailer, SMTP
 * pool and shutdown. Same prefix as the intake queue: on a Cluster both stay
 * in its hash slot.
 */
import { MAIL_QUEUE, type ConsentCodeMailJob } from '@msa/contracts';
import { traceFields } from '../intake/trace-fields.js';
import type { QueueSpec } from './start-queue.js';

export const MAIL_QUEUE_SPEC: QueueSpec<ConsentCodeMailJob> = {
  name: MAIL_QUEUE,
  // A sent code is of no use to keep, and a failed job's sealed code is
  // kept an hour for the operator.
  removal: { onComplete: { count: 0 }, onFail: { age: 3600 } },
  // The job's data is never logged: only its kind, language and trace.
  describe: (job) => {
    const data = job?.data as Partial<ConsentCodeMailJob> | undefined;
    return { kind: typeof data?.kind === 'string' ? data.kind : undefined, ...traceFields(data) };
  },
  metric: 'mail',
  help: {
    completed: 'Mail queue e-mails sent (consent codes)',
    failed: 'Mail jobs that failed for good (attempts exhausted, invalid payload, a seal that does not open, an expired code)',
    retried: 'Mail attempts that failed and will be retried',
    depth: 'Mail jobs waiting or delayed (waiting for a retry)',
  },
  words: {
    queueError: 'mail queue error',
    workerError: 'mail worker error',
    stalled: 'mail job stalled; its worker stopped answering, it runs again',
    retrying: 'mail attempt failed; retrying',
    failedForGood: 'mail job failed for good',
  },
};
