import { INTAKE_FAILED_JOB_MAX_AGE_SECONDS, INTAKE_QUEUE, type IntakeJob } from '@msa/contracts';
import { traceFields } from '../intake/trace-fields.js';
import type { QueueSpec } from './start-queue.js';

/** The shop request queue: jobs added by the requests service, one per live request. */
export const INTAKE_QUEUE_SPEC: QueueSpec<IntakeJob> = {
  name: INTAKE_QUEUE,
  removal: {
    // Producers set their own removal options; these apply to jobs added without.
    // 24 hours as the producer's (README): a count as well would cut that short
    // under load and cost every completion one more range read.
    onComplete: { age: 24 * 3600 },
    onFail: { age: INTAKE_FAILED_JOB_MAX_AGE_SECONDS },
  },
  describe: (job) => ({ shopRequestId: job?.id, ...traceFields(job?.data as Partial<IntakeJob> | undefined) }),
  metric: 'intake',
  help: {
    completed: 'Shop requests delivered',
    failed: 'Intake jobs that failed for good (attempts exhausted or invalid payload)',
    retried: 'Intake attempts that failed and will be retried',
    depth: 'Intake jobs waiting or delayed (waiting for a retry)',
  },
  words: {
    queueError: 'intake queue error',
    workerError: 'intake worker error',
    stalled: 'intake job stalled; its worker stopped answering, it runs again',
    retrying: 'intake attempt failed; retrying',
    failedForGood: 'intake job failed for good; it stays in the failed set for 30 days (retry-failed re-queues it)',
  },
};
