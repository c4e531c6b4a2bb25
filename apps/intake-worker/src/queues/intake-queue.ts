import { INTAKE_FAILED_JOB_MAX_AGE_SECONDS, INTAKE_QUEUE, type IntakeJob } from '@msa/contracts';
import type { Job, Worker } from 'bullmq';
import type { IntakeOutcome } from './intake/run-intake.js';
import { traceFields } from './intake/trace-fields.js';
import { createQueueWorker, type QueueWorkerOptions } from './queue-worker.js';

export interface IntakeWorkerOptions extends QueueWorkerOptions {
  process: (job: Job) => Promise<IntakeOutcome>;
}

export function createIntakeWorker(opts: IntakeWorkerOptions): Worker<IntakeJob, IntakeOutcome> {
  return createQueueWorker<IntakeJob, IntakeOutcome>(
    {
      queue: INTAKE_QUEUE,
      // Producers set their own removal options; these apply to jobs added without.
      // 24 hours as the producer's (README): a count as well would cut that short
      // under load and cost every completion one more range read.
      removeOnComplete: { age: 24 * 3600 },
      removeOnFail: { age: INTAKE_FAILED_JOB_MAX_AGE_SECONDS },
      describe: (job) => ({ shopRequestId: job?.id, ...traceFields(job?.data as Partial<IntakeJob> | undefined) }),
      words: {
        error: 'intake worker error',
        stalled: 'intake job stalled; its worker stopped answering, it runs again',
        retrying: 'intake attempt failed; retrying',
        failedForGood: 'intake job failed for good; it stays in the failed set for 30 days (retry-failed re-queues it)',
      },
    },
    opts,
  );
}
