// The worker with REDIS_WAIT_REPLICAS=1 on a master and a replica of the
// test's own: a delivery's job completes only once the replica holds its
// list entry; while the replica is away the job is retried, and it completes
// with one entry once the replica is back.
import { createTestRedis, startReplicatedRedis, startSmtpSink, type ReplicatedRedis, type SmtpSink, type TestRedis } from '@msa/test-kit';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, waitUntil, type TestWorker } from './support/worker.js';

let pair: ReplicatedRedis;
let testRedis: TestRedis;
let smtp: SmtpSink;
let worker: TestWorker;

beforeAll(async () => {
  pair = await startReplicatedRedis();
  // test-kit's Redis is REDIS_URL: here the test's own master (each test file runs in a process of its own).
  process.env.REDIS_URL = pair.master.url;
  testRedis = await createTestRedis('intake-replication');
  smtp = await startSmtpSink();
  worker = await startTestWorker(testRedis, {
    SMTP_URL: smtp.url,
    REDIS_WAIT_REPLICAS: '1',
    // Generous: a loaded machine can keep a replica's acknowledgement on loopback for hundreds of ms.
    REDIS_WAIT_TIMEOUT_MS: '2000',
  });
});

afterAll(async () => {
  await worker?.close();
  await smtp?.close();
  await testRedis?.cleanup();
  await pair?.close();
});

const listKey = () => `${testRedis.prefix}intake:list`;
const entriesOf = async (client: Redis, requestId: string) =>
  (await client.xrange(listKey(), '-', '+')).filter(([, values]) => values[values.indexOf('request_id') + 1] === requestId);

describe('the intake worker on a Redis whose replica must acknowledge the list entry', () => {
  it('completes a delivery whose list entry the replica holds', async () => {
    const job = buildIntakeJob();

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    expect(await entriesOf(pair.onReplica, job.request_id)).toHaveLength(1);
  });

  it('does not complete the job while the replica is away, and completes it with one list entry once it is back', async () => {
    const job = buildIntakeJob();

    await pair.stopReplica();
    // Retried as the requests service's jobs are, here at a short fixed interval.
    await worker.add(job, { attempts: 50, backoff: { type: 'fixed', delay: 200 } });
    await waitUntil(async () => (await entriesOf(testRedis.redis, job.request_id)).length > 0, 'the list entry is written on the master');
    await waitUntil(async () => (await worker.queue.getJob(job.request_id))!.attemptsMade > 0, 'an attempt failed waiting for the replica');
    const stateWhileAway = await worker.queue.getJobState(job.request_id);
    await pair.startReplica();
    await worker.waitForState(job.request_id, 'completed', 20_000);

    expect(stateWhileAway).not.toBe('completed');
    expect(await entriesOf(testRedis.redis, job.request_id)).toHaveLength(1);
    expect(await entriesOf(pair.onReplica, job.request_id)).toHaveLength(1);
    expect(smtp.to('team@shop.example').filter((m) => m.parsed.text?.includes(job.request_id))).toHaveLength(1);
  });
});
