import { INTAKE_FAILED_JOB_MAX_AGE_SECONDS, INTAKE_QUEUE, MAIL_JOB_SEAL_PURPOSE, MAIL_QUEUE } from '@msa/contracts';
import {
  answerWithin,
  closeServer,
  createLogger,
  createMetrics,
  createSealedText,
  redisTopologyOf,
  listen,
  type Logger,
  type Metrics,
  type RedisClient,
  type RunningService,
} from '@msa/service-kit';
import { createRedis, pingRedis } from '@msa/service-kit/redis';
import type { Queue, Worker } from 'bullmq';
import type { Express } from 'express';
import { Gauge } from 'prom-client';
import { createApp } from './app.js';
import { createFailedJobSweep } from './failed-job-sweep.js';
import { mailboxAddress, type IntakeWorkerConfig } from './config.js';
import { runIntake, type IntakeDeps } from './intake/run-intake.js';
import { createAddressPolicy, parseCidrList } from './logos/address-policy.js';
import { runMailJob, type MailJobDeps } from './mail-jobs/run-mail-job.js';
import { createConfirmationLimit } from './mail/confirmation-limit.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import type { MailSettings } from './mail/mail-settings.js';
import { backoffDelay, createRedisBackoff } from './redis-backoff.js';
import { startQueueUi, type RunningQueueUi } from './queue-ui-server.js';
import { INTAKE_QUEUE_SPEC } from './queues/intake-queue.js';
import { MAIL_QUEUE_SPEC } from './queues/mail-queue.js';
import { keepLastWhileRedisFails, REDIS_ANSWER_MS, startQueue } from './queues/start-queue.js';
import { createIntakeStore } from './store/intake-store.js';

export interface ServiceDeps {
  logger?: Logger;
  /** Replaces the mailer chosen from the config. */
  mailer?: Mailer;
}

export interface RunningIntakeWorker extends RunningService {
  worker: Worker;
  queue: Queue;
  /** Where the queue UI listens, when ADMIN_USER and ADMIN_PASSWORD are set. */
  queueUiUrl?: string;
  /** The worker and queue of `mail` (consent codes). */
  mailWorker: Worker;
  mailQueue: Queue;
}

/** How often failed intake jobs past their age are removed. */
const FAILED_SWEEP_INTERVAL_MS = 3600 * 1000;

export function mailSettingsOf(config: IntakeWorkerConfig): MailSettings {
  const domain = mailboxAddress(config.MAIL_FROM).split('@')[1] ?? 'localhost';
  return { from: config.MAIL_FROM, operatorEmail: config.OPERATOR_EMAIL, domain, publicBaseUrl: config.PUBLIC_BASE_URL };
}

/**
 * Starts the workers on the `intake` and `mail` queues and the admin server
 * on WORKER_PORT (0 = a free port, for tests). `close()` lets running jobs
 * finish first.
 */
export async function startService(config: IntakeWorkerConfig, deps: ServiceDeps = {}): Promise<RunningIntakeWorker> {
  const logger = deps.logger ?? createLogger({ service: 'intake-worker', level: config.LOG_LEVEL });
  const backoff = { first: config.INTAKE_REDIS_BACKOFF_MS, max: config.INTAKE_REDIS_BACKOFF_MAX_MS };
  const redis = createRedis(redisTopologyOf(config), 'worker', {
    logger,
    // Reconnects of one node or a Sentinel-followed master; a Cluster has its own capped strategy.
    retryStrategy: (times) => backoffDelay(times - 1, backoff.first, backoff.max),
  });
  // Built once for the process; the SMTP pool connects on the first send.
  const mailer =
    deps.mailer ?? createMailer({ smtpUrl: config.SMTP_URL, poolSize: config.SMTP_POOL_SIZE, outboxDir: config.OUTBOX_DIR, logger });
  const metrics = createMetrics('intake-worker');
  const intakeDeps = createIntakeDeps(config, { redis, mailer, metrics, logger });
  const mailJobDeps: MailJobDeps = {
    mailer,
    mail: intakeDeps.mail,
    sealed: createSealedText(config.INTERNAL_AUTH_SECRET, MAIL_JOB_SEAL_PURPOSE),
    logger,
  };
  // Both queues under one prefix: on a Cluster they share its hash slot.
  const common = {
    connection: redis,
    prefix: config.QUEUE_PREFIX,
    lockDuration: config.INTAKE_LOCK_DURATION_MS,
    stalledInterval: config.INTAKE_STALLED_INTERVAL_MS,
    logger,
    metrics,
  };
  const intake = startQueue({ ...INTAKE_QUEUE_SPEC, ...common, concurrency: config.INTAKE_CONCURRENCY, process: (job) => runIntake(intakeDeps, job) });
  const mail = startQueue({ ...MAIL_QUEUE_SPEC, ...common, concurrency: config.MAIL_CONCURRENCY, process: (job) => runMailJob(mailJobDeps, job) });
  const { queue, worker } = intake;
  const failedSweep = createFailedJobSweep({ queue, maxAgeSeconds: INTAKE_FAILED_JOB_MAX_AGE_SECONDS, intervalMs: FAILED_SWEEP_INTERVAL_MS, logger });
  failedSweep.start();
  // PING alone is not enough: a node that is not the queue's (MOVED) or serves
  // no slot (CLUSTERDOWN) answers PING and refuses every queue command.
  const redisWorks = async () => {
    await pingRedis(redis);
    await queue.getJobCounts('waiting');
  };
  const redisBackoff = createRedisBackoff({
    workers: [worker, mail.worker],
    check: () => answerWithin(redisWorks(), REDIS_ANSWER_MS, 'Redis'),
    logger,
    firstDelayMs: backoff.first,
    maxDelayMs: backoff.max,
  });
  registerServiceGauges(metrics, { queue, paused: () => Boolean(redisBackoff.failure) });
  const stopAll = async () => {
    redisBackoff.stop();
    failedSweep.stop();
    await shutdown([worker, mail.worker], [queue, mail.queue], mailer, redis);
  };

  const app = createApp({
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    metrics,
    ready: async () => {
      if (redisBackoff.failure) throw new Error(`paused while Redis fails: ${redisBackoff.failure.message}`);
      await answerWithin(redisWorks(), REDIS_ANSWER_MS, 'Redis');
    },
  });
  const { listening, queueUi } = await listenOrStop(config, { app, queue, redis, logger }, stopAll);
  const { server, port, url } = listening;
  logStarted(logger, config, port);

  return {
    url,
    port,
    ...(queueUi ? { queueUiUrl: queueUi.url } : {}),
    worker,
    queue,
    mailWorker: mail.worker,
    mailQueue: mail.queue,
    async close() {
      redisBackoff.stop();
      failedSweep.stop();
      // Running jobs finish first; the admin server answers health checks meanwhile.
      await Promise.all([worker.close(), mail.worker.close()]);
      await Promise.all([closeServer(server), queueUi?.close()]);
      await stopAll();
    },
  };
}

interface Clients {
  redis: RedisClient;
  mailer: Mailer;
  metrics: Metrics;
  logger: Logger;
}

function logStarted(logger: Logger, config: IntakeWorkerConfig, port: number): void {
  logger.info(
    {
      port,
      queue: INTAKE_QUEUE,
      prefix: config.QUEUE_PREFIX,
      concurrency: config.INTAKE_CONCURRENCY,
      mailQueue: MAIL_QUEUE,
      mailConcurrency: config.MAIL_CONCURRENCY,
      smtp: Boolean(config.SMTP_URL),
    },
    'intake worker started',
  );
}

/** What the intake steps need, from the config and the process's clients. */
function createIntakeDeps(config: IntakeWorkerConfig, { redis, mailer, metrics, logger }: Clients): IntakeDeps {
  return {
    store: createIntakeStore(redis, config.REDIS_KEY_PREFIX, { replicas: config.REDIS_WAIT_REPLICAS, timeoutMs: config.REDIS_WAIT_TIMEOUT_MS }),
    mailer,
    mail: mailSettingsOf(config),
    logos: {
      policy: createAddressPolicy({
        allowPrivate: config.LOGO_FETCH_ALLOW_PRIVATE_NETWORKS,
        allowed: parseCidrList(config.LOGO_FETCH_ALLOW_ADDRESSES),
      }),
      maxBytes: config.LOGO_MAX_BYTES,
      timeoutMs: config.LOGO_TIMEOUT_MS,
      totalMaxBytes: config.LOGO_TOTAL_MAX_BYTES,
      jobBudgetMs: config.LOGO_JOB_BUDGET_MS,
      parallel: config.LOGO_PARALLEL_DOWNLOADS,
    },
    confirmations: createConfirmationLimit({
      redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
      perDay: config.CONFIRMATION_MAILS_PER_ADDRESS_PER_DAY,
      secret: config.INTERNAL_AUTH_SECRET,
    }),
    confirmationsHeld: metrics.counter(
      'intake_confirmations_held_total',
      'Confirmation e-mails held back because their address reached its daily limit (the operator e-mail says so)',
    ),
    logger,
    stepDuration: metrics.histogram('intake_step_duration_seconds', 'Duration of one intake step', ['step'], [
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    ]),
  };
}

/** The gauges of the process beside the queue depths: paused while Redis fails, and the failed intake jobs. */
function registerServiceGauges(metrics: Metrics, { queue, paused }: { queue: Queue; paused: () => boolean }): void {
  new Gauge({
    name: 'intake_worker_paused',
    help: '1 while the worker is paused because Redis fails, else 0',
    registers: [metrics.registry],
    collect() {
      this.set(paused() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'intake_jobs_failed_current',
    help: 'Intake jobs in the failed set, waiting for an operator',
    registers: [metrics.registry],
    async collect() {
      const failed = await keepLastWhileRedisFails(() => queue.getFailedCount());
      if (failed !== undefined) this.set(failed);
    },
  });
}

/** The admin server, and the queue UI when ADMIN_USER and ADMIN_PASSWORD are set; if either cannot listen, everything stops. */
async function listenOrStop(
  config: IntakeWorkerConfig,
  { app, queue, redis, logger }: { app: Express; queue: Queue; redis: RedisClient; logger: Logger },
  stopAll: () => Promise<void>,
): Promise<{ listening: Awaited<ReturnType<typeof listen>>; queueUi: RunningQueueUi | null }> {
  let listening;
  try {
    listening = await listen(app, config.WORKER_PORT, { host: config.BIND_ADDRESS, publicBaseUrl: config.PUBLIC_BASE_URL });
    if (!config.ADMIN_USER || !config.ADMIN_PASSWORD) return { listening, queueUi: null };
    const queueUi = await startQueueUi({
      host: config.QUEUE_UI_HOST,
      port: config.QUEUE_UI_PORT,
      queue,
      redis,
      keyPrefix: config.REDIS_KEY_PREFIX,
      user: config.ADMIN_USER,
      password: config.ADMIN_PASSWORD,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      logger,
    });
    return { listening, queueUi };
  } catch (err) {
    if (listening) await closeServer(listening.server);
    await stopAll();
    throw err;
  }
}

async function shutdown(workers: Worker[], queues: Queue[], mailer: Mailer, redis: RedisClient): Promise<void> {
  await Promise.all(workers.map((worker) => worker.close()));
  await Promise.all(queues.map((queue) => queue.close()));
  mailer.close();
  // BullMQ leaves a connection it was given open.
  await redis.quit().catch(() => redis.disconnect());
}
