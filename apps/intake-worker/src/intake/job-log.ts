// The log of one intake job: the lines every step writes, with the job's ids.
import type { IntakeJob } from '@msa/contracts';
import type { Logger } from '@msa/service-kit';
import type { Job } from 'bullmq';
import { traceFields } from './trace-fields.js';

/** The lines a job writes; at the production level (`warn`) most of them are not written at all. */
export type JobLog = Pick<Logger, 'info' | 'warn'>;

/**
 * The job's lines carry its ids. The child logger that adds them is made
 * only when a line is written: most deliveries write none at `warn`.
 */
export function jobLogger(logger: Logger, job: Job, data: IntakeJob): JobLog {
  let child: Logger | undefined;
  const line = (level: 'info' | 'warn') =>
    ((...args: Parameters<Logger['info']>) => {
      if (!logger.isLevelEnabled(level)) return;
      child ??= logger.child({ ...traceFields(data), shopRequestId: data.request_id, jobId: job.id, attempt: job.attemptsMade + 1 });
      child[level](...args);
    }) as Logger['info'];
  return { info: line('info'), warn: line('warn') };
}
