/*
 * A worker whose Redis fails for a while, on a redis-server of this file's
 * own (the shared one is never broken): the worker backs off instead of
 * retrying at once, says so on /readyz and in a few log lines, and delivers
 * again once Redis works. The backoff is the worker's configuration
 * (INTAKE_REDIS_BACKOFF_MS, INTAKE_REDIS_BACKOFF_MAX_MS), set small here.
 */
import { type OwnRedisServer, type SmtpSink, startOwnRedisServer, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, waitUntil, type TestWorker } from './support/worker.js';

const OPERATOR = 'team@shop.example';
const BACKOFF = { INTAKE_REDIS_BACKOFF_MS: '100', INTAKE_REDIS_BACKOFF_MAX_MS: '800' };
/** How long the failing Redis is watched. */
const WINDOW_MS = 3_000;

let own: OwnRedisServer | undefined;
let admin: Redis | undefined;
let worker: TestWorker | undefined;
let smtp: SmtpSink | undefined;

afterEach(async () => {
  // Redis back first: a worker closes cleanly only when it can reach it.
  await own?.start();
  await worker?.close();
  admin?.disconnect();
  await own?.stop();
  await smtp?.close();
  own = admin = worker = smtp = undefined;
});

/** What startTestWorker needs, on the own server; a restart empties it, so there is nothing to clean up. */
function ownTestRedis(server: OwnRedisServer, connection: Redis): TestRedis {
  return { url: server.url, redis: connection, prefix: 'test:redis-failing:', cleanup: async () => undefined };
}

async function startWorkerOn(server: OwnRedisServer, adminUser?: { username: string; password: string }): Promise<TestWorker> {
  admin = new Redis(server.url, { maxRetriesPerRequest: 1, ...adminUser });
  admin.on('error', () => undefined); // the outage is what this file is about
  smtp = await startSmtpSink();
  return startTestWorker(ownTestRedis(server, admin), { SMTP_URL: smtp.url, OPERATOR_EMAIL: OPERATOR, ...BACKOFF });
}

/** Redis commands the server refused with an error so far (NOPERM, MOVED, CLUSTERDOWN … count here). */
async function refusedCommands(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return [...stats.matchAll(/rejected_calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const messages = (w: TestWorker) => w.logs.map((l) => l.msg);

async function deliver(w: TestWorker): Promise<void> {
  const job = buildIntakeJob();
  await w.add(job);
  await w.waitForState(job.request_id, 'completed');
}

describe('an intake worker whose Redis fails', () => {
  it('pauses with growing delays and reports not ready while Redis refuses every queue command, then delivers once Redis works', async () => {
    // The worker's user may PING but every queue command is refused (NOPERM):
    // the same endless reply error a worker on the wrong Cluster node gets (MOVED).
    own = await startOwnRedisServer();
    const setup = new Redis(own.url);
    await setup.acl('SETUSER', 'drill-admin', 'on', '>admin-pw', '~*', '&*', '+@all');
    setup.disconnect();
    worker = await startWorkerOn(own, { username: 'drill-admin', password: 'admin-pw' });
    await admin!.acl('SETUSER', 'default', '-@all', '+ping', '+info', '+hello', '+client', '+select', '+auth');
    await waitUntil(() => messages(worker!).includes('Redis fails; the intake worker paused until it works again'), 'the worker to pause');

    const refusedBefore = await refusedCommands(admin!);
    const linesBefore = worker.logs.length;
    await sleep(WINDOW_MS);
    const refused = (await refusedCommands(admin!)) - refusedBefore;
    const lines = worker.logs.length - linesBefore;
    const during = await request(worker.running.url).get('/readyz');
    const metricsDuring = await request(worker.running.url).get('/metrics');

    await admin!.acl('SETUSER', 'default', '+@all');
    await waitUntil(async () => (await request(worker!.running.url).get('/readyz')).status === 200, 'the worker to turn ready');
    await deliver(worker);
    const metricsAfter = await request(worker.running.url).get('/metrics');

    // Without the backoff BullMQ retried at once: thousands of refused commands a second.
    expect(refused).toBeLessThan(40);
    expect(lines).toBeLessThan(12);
    expect(during.status).toBe(503);
    expect(metricsDuring.text).toMatch(/^intake_worker_paused\{service="intake-worker"\} 1$/m);
    expect(messages(worker)).toContain('Redis still fails; the intake worker stays paused');
    expect(messages(worker)).toContain('Redis works again; the intake worker resumed');
    expect(metricsAfter.text).toMatch(/^intake_worker_paused\{service="intake-worker"\} 0$/m);
    expect(smtp!.to(OPERATOR)).toHaveLength(1);
  }, 30_000);

  it('reports not ready and logs a few lines while Redis is stopped, then delivers once it is back', async () => {
    own = await startOwnRedisServer();
    worker = await startWorkerOn(own);
    await deliver(worker);

    await own.stop();
    const linesBefore = worker.logs.length;
    await sleep(WINDOW_MS);
    const lines = worker.logs.length - linesBefore;
    const during = await request(worker.running.url).get('/readyz');
    await own.start();
    await waitUntil(async () => (await request(worker!.running.url).get('/readyz')).status === 200, 'the worker to turn ready');
    await deliver(worker);

    expect(lines).toBeLessThan(12);
    expect(during.status).toBe(503);
    expect(smtp!.to(OPERATOR)).toHaveLength(2);
  }, 30_000);
});
