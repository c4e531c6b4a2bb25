import { Writable } from 'node:stream';
import { INTAKE_QUEUE, type IntakeJob } from '@msa/contracts';
import { createLogger, loadConfig, type Logger } from '@msa/service-kit';
import { TEST_INTERNAL_SECRET, testLogger, type TestRedis } from '@msa/test-kit';
import { Queue, type JobsOptions, type JobState } from 'bullmq';
import { Redis } from 'ioredis';
import { IntakeWorkerEnv, type IntakeWorkerConfig } from '../../src/config.js';
import { startService, type RunningIntakeWorker } from '../../src/server.js';

let queueCounter = 0;

/**
 * A queue prefix of its own under the file's Redis prefix (so test-kit's
 * cleanup removes it); each worker in a file gets one, so they never take
 * each other's jobs.
 */
export function queuePrefixFor(testRedis: TestRedis): string {
  return `{${testRedis.prefix}q${++queueCounter}}`;
}

export function testConfig(testRedis: TestRedis, env: Record<string, string> = {}): IntakeWorkerConfig {
  return loadConfig(IntakeWorkerEnv, {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    REDIS_URL: testRedis.url,
    REDIS_KEY_PREFIX: testRedis.prefix,
    QUEUE_PREFIX: queuePrefixFor(testRedis),
    WORKER_PORT: '0',
    MAIL_FROM: 'Merch-Shop Anfragen <anfragen@shop.example>',
    OPERATOR_EMAIL: 'team@shop.example',
    LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'true',
    // Files deliver many requests to one contact address; the limit's own test sets it.
    CONFIRMATION_MAILS_PER_ADDRESS_PER_DAY: '1000',
    ...env,
  });
}

export interface TestWorker {
  config: IntakeWorkerConfig;
  running: RunningIntakeWorker;
  queue: Queue;
  /** Log lines the worker wrote (parsed JSON). */
  logs: Record<string, unknown>[];
  add(job: IntakeJob | Record<string, unknown>, opts?: JobsOptions & { jobId?: string }): Promise<string>;
  waitForState(jobId: string, state: JobState, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function captureLogger(lines: Record<string, unknown>[]): Logger {
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return process.env.TEST_LOG_LEVEL ? testLogger('intake-worker') : createLogger({ service: 'intake-worker', level: 'debug', destination });
}

export async function startTestWorker(testRedis: TestRedis, env: Record<string, string> = {}): Promise<TestWorker> {
  const config = testConfig(testRedis, env);
  const logs: Record<string, unknown>[] = [];
  const running = await startService(config, { logger: captureLogger(logs) });
  const producer = await queueFor(testRedis, config.QUEUE_PREFIX);
  return {
    config,
    running,
    logs,
    queue: producer.queue,
    add: producer.add,
    waitForState: producer.waitForState,
    async close() {
      await running.close();
      await producer.close();
    },
  };
}

export interface TestQueue {
  queue: Queue;
  add: TestWorker['add'];
  waitForState: TestWorker['waitForState'];
  close(): Promise<void>;
}

/** A producer on the same queue, as the requests service (or, for `mail`, identity) would add jobs. */
export async function queueFor(testRedis: TestRedis, prefix: string, name: string = INTAKE_QUEUE): Promise<TestQueue> {
  const connection = new Redis(testRedis.url, { maxRetriesPerRequest: null });
  // Commands fail loudly on their own; tests that stop Redis expect the connection events.
  connection.on('error', () => undefined);
  const queue = new Queue(name, { connection, prefix });
  queue.on('error', () => undefined);
  return {
    queue,
    async add(job, opts = {}) {
      const jobId = opts.jobId ?? String((job as { request_id?: string }).request_id);
      await queue.add('intake', job, { attempts: 1, removeOnComplete: false, removeOnFail: false, ...opts, jobId });
      return jobId;
    },
    async waitForState(jobId, state, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let current: string = 'unknown';
      while (Date.now() < deadline) {
        current = await queue.getJobState(jobId);
        if (current === state) return;
        if (current === 'failed' && state !== 'failed') {
          const job = await queue.getJob(jobId);
          throw new Error(`job ${jobId} failed: ${job?.failedReason}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`job ${jobId} is ${current}, not ${state}, after ${timeoutMs} ms`);
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}

/** Polls until `check` returns true (for conditions outside BullMQ). */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
