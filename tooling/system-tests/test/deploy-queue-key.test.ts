// The list KEDA watches to scale the worker is where BullMQ keeps waiting
// intake jobs: checked against a real Redis with the manifest's list name.
import { INTAKE_QUEUE } from '@msa/contracts';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultOf, envSchemaOf, readManifests } from './deploy-support.js';

let tr: TestRedis;
let queue: Queue;
let connection: Redis;
let prefix: string;
let listName: string;

beforeAll(async () => {
  tr = await createTestRedis('deploy-queue-key');
  prefix = `{${tr.prefix}intake}`;
  // BullMQ leaves a connection it was given open; afterAll quits it.
  connection = tr.redis.duplicate();
  queue = new Queue(INTAKE_QUEUE, { connection, prefix });
  const defaultPrefix = String(defaultOf(await envSchemaOf('intake-worker'), 'QUEUE_PREFIX'));
  const scaled = readManifests('components/keda-worker')
    .map((m) => m.doc)
    .find((d) => d.kind === 'ScaledObject' && d.metadata.name === 'intake-worker');
  const manifestList = (scaled?.spec as { triggers: { metadata: { listName: string } }[] }).triggers[0]!.metadata.listName;
  expect(manifestList.startsWith(`${defaultPrefix}:`)).toBe(true);
  // The same key under this test's own queue prefix.
  listName = `${prefix}${manifestList.slice(defaultPrefix.length)}`;
});

afterAll(async () => {
  await queue?.obliterate({ force: true });
  await queue?.close();
  await connection?.quit();
  await tr?.cleanup();
});

describe("the ScaledObject's redis list", () => {
  it('grows by one for every intake job waiting for a worker', async () => {
    await queue.addBulk([1, 2, 3].map((n) => ({ name: 'intake', data: { n }, opts: { jobId: `job-${n}` } })));

    expect(await tr.redis.llen(listName)).toBe(3);
  });

  it('leaves out jobs waiting for a retry', async () => {
    const before = await tr.redis.llen(listName);

    await queue.add('intake', { n: 4 }, { jobId: 'job-4', delay: 60_000 });

    expect(await tr.redis.llen(listName)).toBe(before);
    expect(await queue.getDelayedCount()).toBe(1);
  });
});
