/*
 * The one way this process runs a BullMQ queue: the intake queue and the
 * mail queue differ only in their name, their removal options, what of a
 * job's data a log line may show, their metric names and their words; the
 * queue, its worker, the error listeners, the counters, the depth gauge and
 * the stall and failure handling (a retry is a warning, a final failure an
 * error and a count; no address in either) are written once here.
 */
import { answerWithin, type Logger, type Metrics, type RedisClient } from '@msa/service-kit';
import { throttledLog } from '@msa/service-kit/redis';
import { Queue, Worker, type Job, type KeepJobs } from 'bullmq';
import { Gauge, type Counter } from 'prom-client';
import { withoutAddresses } from '../without-addresses.js';

/** Longest a gauge waits for Redis when scraped; /readyz waits as long. */
export const REDIS_ANSWER_MS = 2_000;

/** What differs between the queues: fixed per queue, written once in its own file. */
export interface QueueSpec<Data> {
  name: string;
  /** For jobs added without their own removal options. */
  removal: { onComplete: KeepJobs; onFail?: KeepJobs };
  /** What a log line about a job may show of it; never personal data. */
  describe: (job: Job<Data> | undefined) => Record<string, unknown>;
  /** Metric names start with it (`<metric>_jobs_completed_total`, `<metric>_queue_depth`). */
  metric: string;
  help: { completed: string; failed: string; retried: string; depth: string };
  words: { queueError: string; workerError: string; stalled: string; retrying: string; failedForGood: string };
}

export interface StartQueueOptions<Data, Result> extends QueueSpec<Data> {
  connection: RedisClient;
  prefix: string;
  concurrency: number;
  lockDuration: number;
  stalledInterval: number;
  process: (job: Job<Data>) => Promise<Result>;
  logger: Logger;
  metrics: Metrics;
}

export interface QueueCounters {
  completed: Counter;
  failed: Counter;
  retried: Counter;
}

export interface StartedQueue<Data, Result> {
  queue: Queue;
  worker: Worker<Data, Result>;
  counters: QueueCounters;
  depth: Gauge;
}

export function startQueue<Data, Result>(opts: StartQueueOptions<Data, Result>): StartedQueue<Data, Result> {
  const queue = new Queue(opts.name, { connection: opts.connection, prefix: opts.prefix });
  const queueError = throttledLog(opts.logger, 'error', opts.words.queueError);
  queue.on('error', (err) => queueError({ err }));
  const counters = {
    completed: opts.metrics.counter(`${opts.metric}_jobs_completed_total`, opts.help.completed),
    failed: opts.metrics.counter(`${opts.metric}_jobs_failed_total`, opts.help.failed),
    retried: opts.metrics.counter(`${opts.metric}_jobs_retried_total`, opts.help.retried),
  };
  const depth = new Gauge({
    name: `${opts.metric}_queue_depth`,
    help: opts.help.depth,
    registers: [opts.metrics.registry],
    async collect() {
      const counts = await keepLastWhileRedisFails(() => queue.getJobCounts('waiting', 'delayed'));
      if (counts) this.set((counts.waiting ?? 0) + (counts.delayed ?? 0));
    },
  });
  return { queue, worker: startWorker(opts, counters), counters, depth };
}

/**
 * Whether the job now sits in the failed set: BullMQ stamps `finishedOn` only
 * then (not when it schedules a retry); a job that stalled too often or
 * threw UnrecoverableError ends there with attempts left.
 */
function isFinalFailure(job: Job, err: Error): boolean {
  return Boolean(job.finishedOn) || err.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
}

function startWorker<Data, Result>(opts: StartQueueOptions<Data, Result>, counters: QueueCounters): Worker<Data, Result> {
  const { logger, words } = opts;
  // What a job throws becomes its failedReason and stacktrace (kept for weeks,
  // shown by the queue UI and retry-failed) and the error of the log line.
  const run = async (job: Job<Data>): Promise<Result> => {
    try {
      return await opts.process(job);
    } catch (err) {
      throw withoutAddresses(err);
    }
  };
  const worker = new Worker<Data, Result>(opts.name, run, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDuration,
    stalledInterval: opts.stalledInterval,
    removeOnComplete: opts.removal.onComplete,
    ...(opts.removal.onFail ? { removeOnFail: opts.removal.onFail } : {}),
  });

  // BullMQ repeats its connection errors while Redis is away.
  const workerError = throttledLog(logger, 'error', words.workerError);
  worker.on('error', (err) => workerError({ err }));
  worker.on('completed', () => counters.completed.inc());
  worker.on('stalled', (jobId) => logger.warn({ jobId, queue: opts.name }, words.stalled));
  worker.on('failed', (job, err) => {
    const line = { err, jobId: job?.id, queue: opts.name, ...opts.describe(job), attempts: job?.attemptsMade, maxAttempts: job?.opts.attempts ?? 1 };
    if (!job || isFinalFailure(job, err)) {
      counters.failed.inc();
      logger.error(line, words.failedForGood);
    } else {
      counters.retried.inc();
      logger.warn(line, words.retrying);
    }
  });
  return worker;
}

/**
 * A queue gauge that cannot read Redis keeps its last value, so the scrape
 * still answers and carries intake_worker_paused, which says why.
 */
export async function keepLastWhileRedisFails<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await answerWithin(read(), REDIS_ANSWER_MS, 'Redis');
  } catch {
    return undefined;
  }
}
