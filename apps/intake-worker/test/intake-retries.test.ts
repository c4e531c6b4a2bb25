import { createServer } from 'node:net';
import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, waitUntil, type TestWorker } from './support/worker.js';

const OPERATOR = 'team@shop.example';
const retryQuickly = { attempts: 20, backoff: { type: 'fixed', delay: 200 } };

let testRedis: TestRedis;
const workers: TestWorker[] = [];
const sinks: SmtpSink[] = [];

beforeAll(async () => {
  testRedis = await createTestRedis('intake-retries');
});

afterEach(async () => {
  // Workers first: their pooled SMTP connections keep a sink's close waiting.
  for (const worker of workers.splice(0)) await worker.close();
  for (const smtp of sinks.splice(0)) await smtp.close();
});

afterAll(async () => {
  await testRedis?.cleanup();
});

/** A port nothing listens on (yet): connections to it are refused. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function start(env: Record<string, string>): Promise<TestWorker> {
  const worker = await startTestWorker(testRedis, env);
  workers.push(worker);
  return worker;
}

async function sink(opts: Parameters<typeof startSmtpSink>[0]): Promise<SmtpSink> {
  const smtp = await startSmtpSink(opts);
  sinks.push(smtp);
  return smtp;
}

describe('intake retries', () => {
  it('delivers once when the SMTP server refuses connections at first and then comes up', async () => {
    const port = await freePort();
    const worker = await start({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    const job = buildIntakeJob();
    await worker.add(job, retryQuickly);
    await waitUntil(async () => ((await worker.queue.getJob(job.request_id))?.attemptsMade ?? 0) >= 2, 'two failed attempts');

    const smtp = await sink({ port });
    await worker.waitForState(job.request_id, 'completed');

    expect(smtp.to(OPERATOR)).toHaveLength(1);
    expect(smtp.to('erika.mustermann@example.org')).toHaveLength(1);
    expect(smtp.messages).toHaveLength(2);
    expect(worker.logs.some((l) => l.level === 'warn' && l.msg === 'intake attempt failed; retrying' && l.jobId === job.request_id)).toBe(true);
    // A refused connection sent nothing, so no attempt warns about a possible duplicate.
    expect(worker.logs.some((l) => String(l.msg).includes('may have sent'))).toBe(false);
  });

  it('does not send the operator e-mail again when only the confirmation failed', async () => {
    let refusals = 2;
    const smtp = await sink({
      onRcpt: (address) => {
        if (address !== 'erika.mustermann@example.org' || refusals-- <= 0) return undefined;
        return Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 });
      },
    });
    const worker = await start({ SMTP_URL: smtp.url });
    const job = buildIntakeJob();

    await worker.add(job, retryQuickly);
    await worker.waitForState(job.request_id, 'completed');

    expect((await worker.queue.getJob(job.request_id))?.attemptsMade).toBe(3);
    expect(smtp.to(OPERATOR)).toHaveLength(1);
    expect(smtp.to('erika.mustermann@example.org')).toHaveLength(1);
    const entries = await testRedis.redis.xrange(`${testRedis.prefix}intake:list`, '-', '+');
    expect(entries.filter(([, v]) => v.includes(job.request_id))).toHaveLength(1);
  });

  it('keeps a job whose attempts are used up in the failed set and logs it as an error', async () => {
    const port = await freePort();
    const worker = await start({ SMTP_URL: `smtp://127.0.0.1:${port}` });
    const job = buildIntakeJob({ trace: { request_id: 'api-7', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });

    await worker.add(job, { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
    await worker.waitForState(job.request_id, 'failed');

    await waitUntil(() => worker.logs.some((l) => l.level === 'error' && l.jobId === job.request_id), 'the error line');
    expect(worker.logs.find((l) => l.level === 'error' && l.jobId === job.request_id)).toMatchObject({
      msg: expect.stringContaining('failed for good'),
      attempts: 2,
      maxAttempts: 2,
      requestId: 'api-7',
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      shopRequestId: job.request_id,
    });
    const metrics = await (await fetch(`${worker.running.url}/metrics`)).text();
    expect(metrics).toMatch(/^intake_jobs_failed_total\{service="intake-worker"\} 1$/m);
    expect(metrics).toMatch(/^intake_jobs_retried_total\{service="intake-worker"\} 1$/m);
    expect(metrics).toMatch(/^intake_jobs_failed_current\{service="intake-worker"\} 1$/m);
  });
});
