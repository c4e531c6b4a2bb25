// Budget 2: live shop requests delivered per second by intake worker
// processes (`node apps/intake-worker/dist/main.js`) to an SMTP sink. The
// queue is filled and paused before a worker starts, and resumed once every
// worker is ready (and, for one process, has sat idle: its idle RSS is
// taken then), so the rate is the worker's own:
// measured from the first delivered request to the last, the list stream
// (the last step of each job) counting deliveries. CPU time of every process
// and the commands Redis ran are taken over that same window and divided by
// the requests delivered in it.
//
// The one-process drain is followed by the same drain for the reference
// (reference-worker.mjs: bare BullMQ + nodemailer, the same jobs, the same
// two messages to the same sink, one list entry each), whose CPU per
// delivery the worker's is judged against.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { INTAKE_QUEUE, INTAKE_LIST_STREAM } from '@msa/contracts';
import { Queue } from 'bullmq';
import { intakeJobOptions, RequestsEnv } from '@msa/requests';
import { cpuPer, startCpuWatch } from './cpu-watch.mjs';
import { buildIntakeJob } from './intake-fixture.mjs';
import { countModules, freePort, spawnService, waitForOk } from './processes.mjs';
import { commandCalls, commandsBetween } from './redis-private.mjs';
import { recordIdleAfter } from './rss-sampler.mjs';

const POLL_MS = 50;
const REFERENCE_WORKER = fileURLToPath(new URL('./reference-worker.mjs', import.meta.url));
// The producer's job options at its configured defaults, read from its env schema.
const INTAKE_ATTEMPTS = RequestsEnv.shape.INTAKE_ATTEMPTS.parse(undefined);
const INTAKE_BACKOFF_MS = RequestsEnv.shape.INTAKE_BACKOFF_MS.parse(undefined);

async function fillQueue(redis, prefix, jobs, name = INTAKE_QUEUE) {
  const queue = new Queue(name, {
    connection: redis,
    prefix,
    // The producer's own options, so the worker sees the same jobs as in production.
    defaultJobOptions: intakeJobOptions(INTAKE_ATTEMPTS, INTAKE_BACKOFF_MS),
  });
  // Paused until every worker is up, so start-up is not part of the drain.
  await queue.pause();
  const CHUNK = 500;
  for (let i = 0; i < jobs; i += CHUNK) {
    const batch = [];
    for (let j = i; j < Math.min(jobs, i + CHUNK); j++) {
      const data = buildIntakeJob(j, 'msa_client_bench');
      batch.push({ name, data, opts: { jobId: data.request_id } });
    }
    await queue.addBulk(batch);
  }
  return queue;
}

/**
 * Resumes nothing, only watches: from the first delivery to the last, the
 * CPU of `participants` and the commands Redis ran, less the bench's own
 * polls (`poll`: the command `delivered` uses).
 */
async function measureDrain({ redis, countCommands, queue, jobs, workers, participants, delivered: countDelivered, poll, maxSeconds }) {
  const deadline = Date.now() + maxSeconds * 1_000;
  let first = null;
  let cpu = null;
  let callsBefore = null;
  let delivered = 0;
  let failed = 0;
  let polls = 0;
  let pollsInWindow = 0;
  let end = null;
  while (Date.now() < deadline) {
    const dead = workers.find((w) => !w.running);
    if (dead) throw new Error(`${dead.name} exited during the run:\n${dead.output()}`);
    delivered = await countDelivered();
    const now = performance.now();
    if (first === null && delivered > 0) {
      // The window opens at the first delivery: start-up and the first job's connections are not counted.
      first = { at: now, delivered };
      cpu = startCpuWatch(participants);
      callsBefore = countCommands ? await commandCalls(redis) : null;
    } else if (first !== null) {
      pollsInWindow++;
    }
    if (++polls % 10 === 0) failed = await queue.getFailedCount();
    if (delivered + failed >= jobs) {
      end = now;
      break;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  const cpuShares = cpu ? cpu.stop() : [];
  // The bench's own polls are taken off; its few failed-count checks (one per 10 polls) stay in, well under 1 %.
  const callsAfter = callsBefore ? await commandCalls(redis) : null;
  const redisCommands = callsBefore ? commandsBetween(callsBefore, callsAfter, { [poll]: pollsInWindow }) : null;
  failed = await queue.getFailedCount();
  return { first, end, stoppedAt: end ?? performance.now(), delivered, failed, cpuShares, callsBefore, callsAfter, redisCommands, pollsInWindow };
}

/** One measured drain of `jobs` queued requests by `processes` worker processes. */
export async function runIntakeDrain({ root, redis, countCommands, redisEnv, redisPids, keyPrefix, label, processes, jobs, sink, sampler, services, settings, log }) {
  const queuePrefix = `{${keyPrefix.replace(/[{}:]/g, '')}-${label}}`;
  const workerKeyPrefix = `${keyPrefix}${label}:`;
  const listKey = `${workerKeyPrefix}${INTAKE_LIST_STREAM}`;
  // Required at start (it opens the mail queue's sealed consent codes); nothing here seals with it.
  const internalAuthSecret = randomBytes(32).toString('hex');
  const env = async () => ({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    INTERNAL_AUTH_SECRET: internalAuthSecret,
    ...redisEnv,
    REDIS_KEY_PREFIX: workerKeyPrefix,
    QUEUE_PREFIX: queuePrefix,
    INTAKE_CONCURRENCY: String(settings.concurrency),
    WORKER_PORT: String(await freePort()),
    SMTP_URL: sink.url,
    MAIL_FROM: 'Merch-Shop Anfragen <anfragen@bench.example.com>',
    OPERATOR_EMAIL: 'team@bench.example.com',
  });

  let modules = null;
  if (settings.countModules && processes === 1) {
    log('intake-worker: counting the modules it loads until ready');
    const countEnv = await env();
    modules = await countModules(root, { name: 'intake-worker', app: 'intake-worker', env: countEnv, nodeOptions: settings.nodeOptions, readyUrl: `http://127.0.0.1:${countEnv.WORKER_PORT}/healthz` });
  }

  log(`intake, ${processes} process${processes > 1 ? 'es' : ''}: queueing ${jobs} live shop requests (queue paused)`);
  const queue = await fillQueue(redis, queuePrefix, jobs);
  const sentBefore = sink.received();

  const workers = [];
  for (let p = 0; p < processes; p++) {
    const workerEnv = await env();
    const worker = spawnService(root, { name: 'intake-worker', app: 'intake-worker', nodeArgs: settings.nodeArgs, nodeOptions: settings.nodeOptions, env: workerEnv });
    services.push(worker);
    workers.push(worker);
    sampler.watch('intake-worker', worker.pid);
    worker.readyUrl = `http://127.0.0.1:${workerEnv.WORKER_PORT}/healthz`;
  }
  await Promise.all(workers.map((w) => waitForOk(w.readyUrl, w)));
  for (const worker of workers) sampler.recordReady('intake-worker', worker.pid);
  if (processes === 1) {
    // The one-process drain waits until the worker has sat idle, for its idle RSS; the two-process drain does not.
    log(`intake-worker: idle for ${settings.idleSeconds} s before the queue is resumed`);
    await recordIdleAfter(sampler, workers.map((w) => ({ name: 'intake-worker', pid: w.pid })), performance.now(), settings.idleSeconds);
  }
  await queue.resume();

  const participants = [
    { name: 'bench (SMTP sink)', pid: process.pid },
    ...workers.map((w, i) => ({ name: `worker ${i + 1}`, pid: w.pid })),
    ...redisPids,
  ];
  const window = await measureDrain({ redis, countCommands, queue, jobs, workers, participants, delivered: () => redis.xlen(listKey), poll: 'xlen', maxSeconds: settings.maxSeconds });
  const { cpuShares, callsBefore, callsAfter, redisCommands, pollsInWindow, first, stoppedAt, end } = window;
  const { delivered, failed } = window;
  for (const worker of workers) {
    sampler.unwatch(worker.pid);
    await worker.stop(15_000);
  }
  await queue.close();

  const seconds = first ? (stoppedAt - first.at) / 1_000 : Number.NaN;
  const inWindow = first ? delivered - first.delivered : 0;
  const perSecond = first && seconds > 0 ? inWindow / seconds : 0;
  const workerMicros = workers.reduce((sum, _w, i) => sum + (cpuPer(cpuShares, `worker ${i + 1}`, 1) || 0), 0);
  const redisName = redisPids.length === 1 ? redisPids[0].name : null;
  // Per command (inside scripts counted), so a change shows which ones it saved.
  const redisCommandsByName = {};
  if (callsAfter && inWindow > 0) {
    const ours = { xlen: pollsInWindow, info: (callsAfter.get('info') ?? 0) - (callsBefore.get('info') ?? 0) };
    for (const [name, n] of callsAfter) {
      const d = n - (callsBefore.get(name) ?? 0) - (ours[name] ?? 0);
      if (d > 0) redisCommandsByName[name] = Math.round((d / inWindow) * 100) / 100;
    }
    log(`intake, ${processes} process${processes > 1 ? 'es' : ''}: Redis commands per delivery ${JSON.stringify(redisCommandsByName)}`);
  }
  return {
    modules,
    /** Worker CPU (all processes) per request delivered in the window, µs. */
    cpuPerDelivery: inWindow > 0 ? workerMicros / inWindow : Number.NaN,
    redisCpuPerDelivery: redisName ? cpuPer(cpuShares, redisName, inWindow) : Number.NaN,
    sinkCpuPerDelivery: cpuPer(cpuShares, 'bench (SMTP sink)', inWindow),
    redisCommandsPerDelivery: redisCommands === null || inWindow === 0 ? Number.NaN : redisCommands / inWindow,
    redisCommandsByName,
    deliveredInWindow: inWindow,
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
    // The same jobs for the bare reference, right after the one-process drain.
    reference: processes === 1 ? await runReferenceDrain({ root, redis, countCommands, redisEnv, redisPids, keyPrefix, label, jobs, sink, sampler, services, settings, log }) : null,
  };
}

/** Resolves once `service` printed `line`; fails when it exits first. */
async function waitForLine(service, line, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!service.output().includes(line)) {
    if (!service.running) throw new Error(`${service.name} exited before it was ready:\n${service.output()}`);
    if (Date.now() > deadline) throw new Error(`${service.name} was not ready within ${timeoutMs} ms:\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The one-process drain again, for reference-worker.mjs: the same number of
 * the same jobs on a queue of its own, the same sink, the same V8 flags.
 * Needs one Redis URL (not measured on a Cluster).
 */
async function runReferenceDrain({ root, redis, countCommands, redisEnv, redisPids, keyPrefix, label, jobs, sink, sampler, services, settings, log }) {
  if (!redisEnv.REDIS_URL) return null;
  const queuePrefix = `{${keyPrefix.replace(/[{}:]/g, '')}-${label}-reference}`;
  const listKey = `${keyPrefix}${label}:reference-list`;
  log(`reference (bare BullMQ + nodemailer): queueing ${jobs} live shop requests (queue paused)`);
  const queue = await fillQueue(redis, queuePrefix, jobs);
  const sentBefore = sink.received();
  const name = 'reference worker';
  const env = {
    NODE_ENV: 'production',
    REDIS_URL: redisEnv.REDIS_URL,
    REFERENCE_QUEUE: INTAKE_QUEUE,
    REFERENCE_QUEUE_PREFIX: queuePrefix,
    REFERENCE_LIST_KEY: listKey,
    REFERENCE_CONCURRENCY: String(settings.concurrency),
    SMTP_URL: sink.url,
    MAIL_FROM: 'Merch-Shop Anfragen <anfragen@bench.example.com>',
    OPERATOR_EMAIL: 'team@bench.example.com',
  };
  const reference = spawnService(root, { name, script: REFERENCE_WORKER, env, nodeOptions: settings.nodeOptions });
  services.push(reference);
  sampler.watch(name, reference.pid);
  await waitForLine(reference, 'ready reference-worker');
  await queue.resume();

  const participants = [{ name: 'bench (SMTP sink)', pid: process.pid }, { name, pid: reference.pid }, ...redisPids];
  const window = await measureDrain({ redis, countCommands, queue, jobs, workers: [reference], participants, delivered: () => redis.llen(listKey), poll: 'llen', maxSeconds: settings.maxSeconds });
  sampler.unwatch(reference.pid);
  await reference.stop(15_000);
  await queue.close();
  const inWindow = window.first ? window.delivered - window.first.delivered : 0;
  const seconds = window.first ? (window.stoppedAt - window.first.at) / 1_000 : Number.NaN;
  return {
    cpuPerDelivery: inWindow > 0 ? cpuPer(window.cpuShares, name, 1) / inWindow : Number.NaN,
    redisCommandsPerDelivery: window.redisCommands === null || inWindow === 0 ? Number.NaN : window.redisCommands / inWindow,
    perSecond: seconds > 0 ? inWindow / seconds : 0,
    delivered: window.delivered,
    failed: window.failed,
    drained: window.end !== null,
    emails: sink.received() - sentBefore,
    cpu: window.cpuShares,
  };
}
