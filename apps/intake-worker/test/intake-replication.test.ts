// The worker with REDIS_WAIT_REPLICAS=1 on a master and a replica of the
// test's own: a delivery's job completes only once the replica holds its
// list entry; while the replica is away the job is retried, and it completes
// with one entry once the replica is back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestRedis, startOwnRedisServer, startSmtpSink, type OwnRedisServer, type SmtpSink, type TestRedis } from '@msa/test-kit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, type TestWorker } from './support/worker.js';

let dir: string | undefined;
let master: OwnRedisServer;
let replica: OwnRedisServer;
let onReplica: Redis;
let testRedis: TestRedis;
let smtp: SmtpSink;
let worker: TestWorker;

async function replicationInfo(port: number): Promise<string> {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    return await client.info('replication');
  } finally {
    client.disconnect();
  }
}

async function until(what: string, probe: () => Promise<boolean>, attempts = 300): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

beforeAll(async () => {
  // The replica writes the master's snapshot to its directory when it syncs: a temporary one, not the package's.
  dir = mkdtempSync(join(tmpdir(), 'msa-replica-'));
  master = await startOwnRedisServer({ args: ['--dir', dir] });
  replica = await startOwnRedisServer({ args: ['--dir', dir, '--dbfilename', 'replica.rdb', '--replicaof', '127.0.0.1', String(master.port)] });
  await until('the replica is in sync', async () => /master_link_status:up/.test(await replicationInfo(replica.port)));
  onReplica = new Redis(replica.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  // It is stopped and started by a test; its reconnect errors are expected.
  onReplica.on('error', () => undefined);
  // test-kit's Redis is REDIS_URL: here the test's own master (each test file runs in a process of its own).
  process.env.REDIS_URL = master.url;
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
  onReplica?.disconnect();
  await replica?.stop();
  await master?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const listKey = () => `${testRedis.prefix}intake:list`;
const entriesOf = async (client: Redis, requestId: string) =>
  (await client.xrange(listKey(), '-', '+')).filter(([, values]) => values[values.indexOf('request_id') + 1] === requestId);

describe('the intake worker on a Redis whose replica must acknowledge the list entry', () => {
  it('completes a delivery whose list entry the replica holds', async () => {
    const job = buildIntakeJob();

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    expect(await entriesOf(onReplica, job.request_id)).toHaveLength(1);
  });

  it('does not complete the job while the replica is away, and completes it with one list entry once it is back', async () => {
    const job = buildIntakeJob();

    await replica.stop();
    await until('the master counts no replica', async () => /connected_slaves:0\b/.test(await replicationInfo(master.port)));
    // Retried as the requests service's jobs are, here at a short fixed interval.
    await worker.add(job, { attempts: 50, backoff: { type: 'fixed', delay: 200 } });
    await until('the list entry is written on the master', async () => (await entriesOf(testRedis.redis, job.request_id)).length > 0);
    await until('an attempt failed waiting for the replica', async () => (await worker.queue.getJob(job.request_id))!.attemptsMade > 0);
    const stateWhileAway = await worker.queue.getJobState(job.request_id);
    await replica.start();
    await worker.waitForState(job.request_id, 'completed', 20_000);

    expect(stateWhileAway).not.toBe('completed');
    expect(await entriesOf(testRedis.redis, job.request_id)).toHaveLength(1);
    expect(await entriesOf(onReplica, job.request_id)).toHaveLength(1);
    expect(smtp.to('team@shop.example').filter((m) => m.parsed.text?.includes(job.request_id))).toHaveLength(1);
  });
});
