import { INTAKE_FAILED_JOB_MAX_AGE_SECONDS, INTAKE_QUEUE } from '@msa/contracts';
import { createLogger } from '@msa/service-kit';
import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFailedJobSweep } from '../src/failed-job-sweep.js';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, waitUntil, type TestWorker } from './support/worker.js';

const CONTACT = 'erika.mustermann@example.org';
/** As the requests service adds every intake job (intakeJobOptions), with quick retries. */
const producerOptions = { attempts: 2, backoff: { type: 'fixed', delay: 100 }, removeOnFail: { age: INTAKE_FAILED_JOB_MAX_AGE_SECONDS } };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let testRedis: TestRedis;
let redis: Redis;
const workers: TestWorker[] = [];
const sinks: SmtpSink[] = [];

beforeAll(async () => {
  testRedis = await createTestRedis('intake-failed-jobs');
  redis = new Redis(testRedis.url);
});

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.close();
  for (const smtp of sinks.splice(0)) await smtp.close();
});

afterAll(async () => {
  redis?.disconnect();
  await testRedis?.cleanup();
});

/** A mail server that refuses the contact, quoting the address as real servers do. */
async function refusingSink(): Promise<SmtpSink> {
  const smtp = await startSmtpSink({
    onRcpt: (address) =>
      address === CONTACT ? Object.assign(new Error(`5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`), { responseCode: 550 }) : undefined,
  });
  sinks.push(smtp);
  return smtp;
}

async function start(env: Record<string, string>): Promise<TestWorker> {
  const worker = await startTestWorker(testRedis, env);
  workers.push(worker);
  return worker;
}

describe('a failed intake job', () => {
  it('keeps no e-mail address in its failed reason, stack trace or log lines when the mail server refuses the contact quoting it', async () => {
    const smtp = await refusingSink();
    const worker = await start({ SMTP_URL: smtp.url });
    const job = buildIntakeJob();

    await worker.add(job, producerOptions);
    await worker.waitForState(job.request_id, 'failed');

    const stored = await redis.hgetall(worker.queue.toKey(job.request_id));
    expect(stored.failedReason).toContain('550');
    expect(stored.failedReason).toContain('[address]');
    expect((await worker.queue.getJob(job.request_id))?.attemptsMade).toBe(2);
    for (const field of [stored.failedReason, stored.stacktrace]) {
      expect(field).not.toContain('erika');
      expect(field).not.toContain('@example.org');
    }
    await waitUntil(() => worker.logs.some((l) => String(l.msg).includes('failed for good')), 'the final failure line');
    const failureLines = worker.logs.filter((l) => l.err);
    expect(failureLines).toHaveLength(2);
    expect(JSON.stringify(worker.logs)).not.toContain(CONTACT);
    // The operator e-mail went out on the first attempt and was not sent again.
    expect(smtp.to('team@shop.example')).toHaveLength(1);
  });

  it('is removed 30 days after it failed, as its options in Redis say', async () => {
    const smtp = await refusingSink();
    const worker = await start({ SMTP_URL: smtp.url });
    const job = buildIntakeJob();

    await worker.add(job, producerOptions);
    await worker.waitForState(job.request_id, 'failed');

    const opts = JSON.parse((await redis.hget(worker.queue.toKey(job.request_id), 'opts')) ?? '{}') as Record<string, unknown>;
    expect(opts.removeOnFail).toEqual({ age: 30 * 86_400 });
  });
});

describe('the sweep of failed intake jobs', () => {
  it('removes failed jobs older than the age, even with no later failure to trim them, and keeps younger ones', async () => {
    const smtp = await refusingSink();
    const worker = await start({ SMTP_URL: smtp.url });
    const old = buildIntakeJob();
    const young = buildIntakeJob();
    // An earlier producer kept failed jobs forever.
    await worker.add(old, { removeOnFail: false });
    await worker.waitForState(old.request_id, 'failed');
    await new Promise((r) => setTimeout(r, 1_100));
    await worker.add(young, { removeOnFail: false });
    await worker.waitForState(young.request_id, 'failed');
    const logger = createLogger({ service: 'intake-worker', level: 'silent' });

    const monthly = createFailedJobSweep({ queue: worker.queue, maxAgeSeconds: INTAKE_FAILED_JOB_MAX_AGE_SECONDS, intervalMs: 3_600_000, logger });
    const keptByMonthly = await monthly.runOnce();
    const secondly = createFailedJobSweep({ queue: worker.queue, maxAgeSeconds: 1, intervalMs: 3_600_000, logger });
    const removed = await secondly.runOnce();

    expect(keptByMonthly).toBe(0);
    expect(removed).toBe(1);
    expect(await worker.queue.getJob(old.request_id)).toBeUndefined();
    expect(await worker.queue.getJobState(young.request_id)).toBe('failed');
  });
});

describe('the queue UI', () => {
  it('shows no full e-mail address in the failure reason of a job that failed under an earlier version', async () => {
    const password = 'correct horse battery staple';
    const worker = await start({ ADMIN_USER: 'ops', ADMIN_PASSWORD: password, QUEUE_UI_PORT: '0' });
    // The worker's own processing scrubs; an earlier version stored the server's words as they were.
    // Closed, not paused: a paused worker's fetch already waiting would still take the job.
    await worker.running.worker.close();
    const job = buildIntakeJob();
    await worker.add(job, { removeOnFail: false });
    const connection = new Redis(testRedis.url, { maxRetriesPerRequest: null });
    const earlier = new Worker(INTAKE_QUEUE, null, { connection, prefix: worker.config.QUEUE_PREFIX });
    const taken = await earlier.getNextJob('earlier-version');
    await taken!.moveToFailed(new Error(`Can't send mail - all recipients were rejected: 550 5.1.1 <${CONTACT}>: Recipient address rejected`), 'earlier-version');
    await earlier.close();
    connection.disconnect();
    const ui = request(worker.running.queueUiUrl!);

    const one = await ui.get(`/admin/queues/api/queues/intake/${job.request_id}`).set('Authorization', basic('ops', password));
    const list = await ui.get('/admin/queues/api/queues?activeQueue=intake&status=failed').set('Authorization', basic('ops', password));

    expect(one.status).toBe(200);
    expect(one.body.job.failedReason).toContain('550 5.1.1 <[address]>');
    expect(JSON.stringify(one.body)).not.toContain('erika');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain(job.request_id);
    expect(JSON.stringify(list.body)).not.toContain('erika');
    // Masked for showing only: Redis keeps what was stored.
    expect(await redis.hget(worker.queue.toKey(job.request_id), 'failedReason')).toContain(CONTACT);
  });
});
