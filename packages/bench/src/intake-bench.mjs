// Budget 2: live shop requests delivered per second by intake worker
// processes (`node apps/intake-worker/dist/main.js`) to an SMTP sink. The
// queue is filled before a worker starts, so the rate is the worker's own:
// measured from the first delivered request to the last, the list stream
// (the last step of each job) counting deliveries.
import { INTAKE_QUEUE, INTAKE_LIST_STREAM } from '@msa/contracts';
import { Queue } from 'bullmq';
import { startCpuWatch } from './cpu-watch.mjs';
import { buildIntakeJob } from './intake-fixture.mjs';
import { freePort, spawnService } from './processes.mjs';

const POLL_MS = 50;

async function fillQueue(redis, prefix, jobs) {
  const queue = new Queue(INTAKE_QUEUE, {
    connection: redis,
    prefix,
    // The producer's options (apps/requests), so the worker sees the same jobs as in production.
    defaultJobOptions: { attempts: 5, backoff: { type: 'exponential', delay: 5_000 }, removeOnComplete: { age: 86_400 }, removeOnFail: false },
  });
  const CHUNK = 500;
  for (let i = 0; i < jobs; i += CHUNK) {
    const batch = [];
    for (let j = i; j < Math.min(jobs, i + CHUNK); j++) {
      const data = buildIntakeJob(j, 'msa_client_bench');
      batch.push({ name: INTAKE_QUEUE, data, opts: { jobId: data.request_id } });
    }
    await queue.addBulk(batch);
  }
  return queue;
}

/** One measured drain of `jobs` queued requests by `processes` worker processes. */
export async function runIntakeDrain({ root, redis, redisEnv, redisPids, keyPrefix, label, processes, jobs, sink, sampler, services, settings, log }) {
  const queuePrefix = `{${keyPrefix.replace(/[{}:]/g, '')}-${label}}`;
  const workerKeyPrefix = `${keyPrefix}${label}:`;
  const listKey = `${workerKeyPrefix}${INTAKE_LIST_STREAM}`;
  log(`intake, ${processes} process${processes > 1 ? 'es' : ''}: queueing ${jobs} live shop requests`);
  const queue = await fillQueue(redis, queuePrefix, jobs);
  const sentBefore = sink.received();

  const workers = [];
  for (let p = 0; p < processes; p++) {
    const worker = spawnService(root, {
      name: 'intake-worker',
      app: 'intake-worker',
      nodeArgs: settings.nodeArgs,
      env: {
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        ...redisEnv,
        REDIS_KEY_PREFIX: workerKeyPrefix,
        QUEUE_PREFIX: queuePrefix,
        INTAKE_CONCURRENCY: String(settings.concurrency),
        WORKER_PORT: String(await freePort()),
        SMTP_URL: sink.url,
        MAIL_FROM: 'Merch-Shop Anfragen <anfragen@bench.example.com>',
        OPERATOR_EMAIL: 'team@bench.example.com',
      },
    });
    services.push(worker);
    workers.push(worker);
    sampler.watch('intake-worker', worker.pid);
  }

  const cpu = startCpuWatch([
    { name: 'bench (SMTP sink)', pid: process.pid },
    ...workers.map((w, i) => ({ name: `worker ${i + 1}`, pid: w.pid })),
    ...redisPids,
  ]);
  const deadline = Date.now() + settings.maxSeconds * 1_000;
  let first = null;
  let delivered = 0;
  let failed = 0;
  let polls = 0;
  let end = null;
  while (Date.now() < deadline) {
    const dead = workers.find((w) => !w.running);
    if (dead) throw new Error(`an intake worker exited during the run:\n${dead.output()}`);
    delivered = await redis.xlen(listKey);
    const now = performance.now();
    if (first === null && delivered > 0) first = { at: now, delivered };
    if (++polls % 10 === 0) failed = await queue.getFailedCount();
    if (delivered + failed >= jobs) {
      end = now;
      break;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const cpuShares = cpu.stop();
  failed = await queue.getFailedCount();
  const stoppedAt = end ?? performance.now();

  for (const worker of workers) {
    sampler.unwatch(worker.pid);
    await worker.stop(15_000);
  }
  await queue.close();

  const seconds = first ? (stoppedAt - first.at) / 1_000 : Number.NaN;
  const perSecond = first && seconds > 0 ? (delivered - first.delivered) / seconds : 0;
  return {
    processes,
    jobs,
    delivered,
    failed,
    drained: end !== null,
    seconds,
    perSecond,
    emails: sink.received() - sentBefore,
    queuePrefix,
    cpu: cpuShares,
  };
}
