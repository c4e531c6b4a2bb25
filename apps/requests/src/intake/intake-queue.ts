// The producer side of the `intake` queue. Attempts and backoff are the
// queue's default job options, set once here; `jobId` is the shop request id,
// so adding a request that is already on the queue is a no-op.
import { INTAKE_FAILED_JOB_MAX_AGE_SECONDS, INTAKE_QUEUE, type IntakeJob } from '@msa/contracts';
import { answerWithin, type Logger } from '@msa/service-kit';
import { throttledLog, waitForReplicas, type ReplicationOptions } from '@msa/service-kit/redis';
import { Queue, type DefaultJobOptions } from 'bullmq';
import type { RedisClient } from '@msa/service-kit';

/** An enqueue that has not answered by then is treated as failed; the reconciler retries it. */
const ENQUEUE_TIMEOUT_MS = 5_000;

export interface IntakeQueue {
  enqueue(job: IntakeJob): Promise<void>;
  /** Removes the job of a request not yet delivered (waiting, delayed or failed); false when there is none or a worker holds it. */
  drop(requestId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The options every intake job is added with (the bench adds its jobs with them too). */
export function intakeJobOptions(attempts: number, backoffMs: number) {
  return {
    attempts,
    backoff: { type: 'exponential', delay: backoffMs },
    // Completed jobs stay inspectable for 24 hours. A failed one carries the
    // whole request: it waits 30 days for retry-failed, then goes (BullMQ
    // trims the failed set when a later job fails; the worker sweeps it too).
    // The request itself stays stored here with its intake state.
    removeOnComplete: { age: 86_400 },
    removeOnFail: { age: INTAKE_FAILED_JOB_MAX_AGE_SECONDS },
  } satisfies DefaultJobOptions;
}

export interface IntakeQueueOptions {
  /** A connection of its own (`createRedis(url, 'api')`): fails fast, and the queue never closes it. */
  connection: RedisClient;
  prefix: string;
  attempts: number;
  backoffMs: number;
  logger: Logger;
  /**
   * Replicas that must hold a job before `enqueue` resolves (REDIS_WAIT_REPLICAS):
   * the record is marked queued only after that, so a queue master that dies
   * with the job leaves the request pending for the reconciler, never marked
   * queued with no job anywhere. Off when absent or 0.
   */
  replication?: ReplicationOptions;
}

export function createIntakeQueue({ connection, prefix, attempts, backoffMs, logger, replication }: IntakeQueueOptions): IntakeQueue & { queue: Queue<IntakeJob> } {
  const queue = new Queue<IntakeJob>(INTAKE_QUEUE, {
    connection,
    prefix,
    // Without these the queue waits for Redis (and asks its version) before its
    // first command, and stays broken if Redis was down then; with them an
    // outage fails each add fast and a later add works again.
    skipWaitingForReady: true,
    skipVersionCheck: true,
    defaultJobOptions: intakeJobOptions(attempts, backoffMs),
  });
  const queueError = throttledLog(logger, 'warn', 'intake queue error');
  queue.on('error', (err) => queueError({ err }));

  return {
    queue,
    async enqueue(job) {
      await answerWithin(queue.add(INTAKE_QUEUE, job, { jobId: job.request_id }), ENQUEUE_TIMEOUT_MS, 'the intake queue');
      // On the connection BullMQ wrote with (its forwarding wrapper of `connection`), at the master of the queue's slot.
      if (replication?.replicas) await waitForReplicas((await queue.getBackend().client) as unknown as RedisClient, [queue.toKey(job.request_id)], replication);
    },
    async drop(requestId) {
      // BullMQ answers 1 for an id it does not know, so ask first. It refuses
      // (0) a job a worker holds: that delivery finishes.
      if (!(await queue.getJob(requestId))) return false;
      return (await queue.remove(requestId)) === 1;
    },
    close: () => queue.close(),
  };
}

/** The queue as a POST hands over to it, counting each job it could not add (left to the reconciler). */
export function countingEnqueueFailures(intake: Pick<IntakeQueue, 'enqueue'>, failures: { inc(): void }): Pick<IntakeQueue, 'enqueue'> {
  return {
    enqueue: (job) =>
      intake.enqueue(job).catch((err: unknown) => {
        failures.inc();
        throw err;
      }),
  };
}
