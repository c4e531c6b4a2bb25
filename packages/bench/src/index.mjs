// `pnpm bench`: measures the performance budget of DESIGN.md on this machine,
// prints one table per budget and answers with the exit code (1 when a budget
// is missed). Everything it starts is stopped again, and every Redis key it
// wrote is deleted, also when a run fails or is interrupted.
import os from 'node:os';
import { startSmtpSink } from '@msa/test-kit/smtp-sink';
import { Cluster, Redis } from 'ioredis';
import { findRedisServerPid, formatCpu, measureIdle } from './cpu-watch.mjs';
import { startBenchCluster } from './redis-cluster.mjs';
import { check, formatTable, info, isMiss } from './report.mjs';
import { createRssSampler } from './rss-sampler.mjs';
import { loadSettings } from './settings.mjs';
import { formatNumber as fmt } from './stats.mjs';

const MB = 1024 * 1024;
const RSS_LIMIT_MB = 120;

function log(line) {
  process.stderr.write(`[bench] ${line}\n`);
}

async function deleteKeys(redis, patterns) {
  let deleted = 0;
  for (const match of patterns) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  return deleted;
}

async function connectRedis(url) {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: null, enableOfflineQueue: true, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(`Redis at ${url} does not answer (${err.message}); start one or set REDIS_URL`);
  }
  return redis;
}

const table = (title, rows, notes = []) => ({ title, rows, notes });

function searchTable(r) {
  return table(`Budget 3: catalog search over ${fmt(r.entries)} products, in process (${fmt(r.searches)} searches, ${r.queries} mixed queries)`, [
    info('index build (10,000 entries + wire views)', `${fmt(r.buildMs, 0)} ms`),
    info('matches per query, mean', fmt(r.meanHits)),
    info('searchProducts alone, p50', `${fmt(r.search.p50, 2)} ms`),
    info('searchProducts alone, p99', `${fmt(r.search.p99, 2)} ms`),
    info('answer (parse + search + JSON), p50', `${fmt(r.answer.p50, 2)} ms`),
    check('answer (parse + search + JSON), p99', `${fmt(r.answer.p99, 2)} ms`, '<= 10 ms', r.answer.p99 <= 10),
  ]);
}

function gatewayTable(r, s) {
  const throughputRatio = r.gateway.requestsPerSecond / r.direct.requestsPerSecond;
  const p99Ratio = r.gateway.p99 / r.direct.p99;
  const clean = (run) => run.non2xx === 0 && run.errors === 0 && run.ok > 0;
  return table(
    `Budget 1: GET ${r.path} (${r.total} matches, ${fmt(r.responseBytes)} bytes), ${s.connections} connections, ${s.durationSeconds} s after ${s.warmupSeconds} s warm-up`,
    [
      info('catalog direct: req/s', fmt(r.direct.requestsPerSecond)),
      info('catalog direct: p50 / p99', `${r.direct.p50} / ${r.direct.p99} ms`),
      info('through gateway: req/s', fmt(r.gateway.requestsPerSecond)),
      info('through gateway: p50 / p99', `${r.gateway.p50} / ${r.gateway.p99} ms`),
      check('gateway / direct throughput', fmt(throughputRatio, 3), '>= 0.50', throughputRatio >= 0.5),
      check('gateway p99 / direct p99', fmt(p99Ratio, 3), '<= 2.00', p99Ratio <= 2),
      check(
        'responses not 2xx / errors (direct, gateway)',
        `${r.direct.non2xx}/${r.direct.errors}, ${r.gateway.non2xx}/${r.gateway.errors}`,
        'none',
        clean(r.direct) && clean(r.gateway),
      ),
    ],
    [
      formatCpu('the direct run', r.direct.cpu),
      formatCpu('the gateway run', r.gateway.cpu),
      `note: the gateway ran with RATE_LIMIT_PER_MINUTE=${r.rateLimitPerMinute}, so the limit never answers 429; every request still costs the limiter its Redis round trip.`,
    ],
  );
}

function intakeTable(one, two, s, topology) {
  const ratio = two.perSecond / one.perSecond;
  const complete = (run) => run.drained && run.failed === 0 && run.emails === run.delivered * 2;
  const row = (run) => `${fmt(run.delivered)}/${fmt(run.jobs)} in ${fmt(run.seconds, 1)} s, ${run.failed} failed, ${fmt(run.emails)} e-mails`;
  return table(`Budget 2: intake worker to an SMTP sink (INTAKE_CONCURRENCY=${s.concurrency}, SMTP_POOL_SIZE default${topology === 'cluster' ? ', Redis: 3 masters + 3 replicas Cluster' : ''})`, [
    info('1 process: delivered', row(one)),
    check('1 process: shop requests/s', fmt(one.perSecond), '>= 300', one.perSecond >= 300),
    info('2 processes: delivered', row(two)),
    info('2 processes: shop requests/s', fmt(two.perSecond)),
    check('2 processes / 1 process', fmt(ratio, 3), '>= 1.80', ratio >= 1.8),
    check('every request delivered, 2 e-mails each', complete(one) && complete(two) ? 'yes' : 'no', 'yes', complete(one) && complete(two)),
  ], [formatCpu('the 1-process drain', one.cpu), formatCpu('the 2-process drain', two.cpu)]);
}

function rssTable(maxima, idle, expected) {
  return table(`Budget 4: highest resident memory (VmRSS) per service during budgets 1 and 2`, [
    ...expected.flatMap((name) => {
      const bytes = maxima.get(name);
      const atRest = idle.get(name);
      return [
        ...(atRest === undefined ? [] : [info(`${name}, ready and idle`, `${fmt(atRest / MB, 1)} MB`)]),
        bytes === undefined
          ? check(`${name}, under load`, 'n/a', `< ${RSS_LIMIT_MB} MB`, null)
          : check(`${name}, under load`, `${fmt(bytes / MB, 1)} MB`, `< ${RSS_LIMIT_MB} MB`, bytes < RSS_LIMIT_MB * MB),
      ];
    }),
  ]);
}

/** Runs the budget's measurements; resolves to the process exit code. */
export async function runBenchmarks() {
  const settings = loadSettings();
  const services = [];
  const sampler = createRssSampler();
  const tables = [];
  let redis = null;
  let cluster = null;
  let redisEnv = {};
  let redisPids = [];
  let sink = null;
  let failure = null;

  const cleanup = async () => {
    sampler.stop();
    await Promise.all(services.map((s) => s.stop()));
    if (sink) await sink.close().catch(() => {});
    sink = null;
    if (cluster) {
      // The cluster's data goes with it.
      redis?.disconnect();
      redis = null;
      await cluster.stop().catch((err) => log(`could not stop the Redis Cluster: ${err.message}`));
      cluster = null;
    }
    if (redis) {
      const deleted = await deleteKeys(redis, [`${settings.keyPrefix}*`, `{${settings.keyPrefix.replace(/[{}:]/g, '')}-*`]).catch((err) => {
        log(`could not delete the benchmark's Redis keys: ${err.message}`);
        return 0;
      });
      log(`deleted ${deleted} Redis keys of this run`);
      redis.disconnect();
      redis = null;
    }
  };
  const interrupted = (signal) => {
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  const idle = await measureIdle();
  const header = [
    `Merch-Shop Agent API benchmarks, ${new Date().toISOString()}`,
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), CPU idle ${idle} % in the second before start, load average ${os.loadavg()[0].toFixed(2)}`,
  ];
  if (idle < 80) header.push(`note: the machine was busy at start; trust numbers from a quiet machine (see "other" in the CPU lines)`);
  if (settings.redisTopology === 'cluster') header.push('Redis: a 3-master + 3-replica Cluster started for this run on loopback (BENCH_REDIS=cluster)');
  if (settings.profileDir) header.push(`CPU profiles of the services go to ${settings.profileDir}`);

  try {
    if (settings.parts.includes('search')) {
      log('catalog search over 10,000 products, in process');
      // Loaded on use: BENCH_ONLY=gateway works while the catalog package is being rebuilt.
      const { runSearchBench } = await import('./search-bench.mjs');
      const result = runSearchBench(settings.search);
      tables.push(searchTable(result));
    }

    if (settings.parts.includes('gateway') || settings.parts.includes('intake')) {
      if (settings.redisTopology === 'cluster') {
        cluster = await startBenchCluster(log);
        redis = new Cluster(cluster.seeds, { redisOptions: { maxRetriesPerRequest: null } });
        redisEnv = { REDIS_CLUSTER_NODES: cluster.seedList };
        redisPids = cluster.pids;
      } else {
        redis = await connectRedis(settings.redisUrl);
        redisEnv = { REDIS_URL: settings.redisUrl };
        const pid = findRedisServerPid();
        redisPids = pid ? [{ name: 'redis', pid }] : [];
      }
    }

    if (settings.parts.includes('gateway')) {
      const { runGatewayBench } = await import('./gateway-bench.mjs');
      const result = await runGatewayBench({
        root: settings.root,
        redisEnv,
        redisPids,
        keyPrefix: settings.keyPrefix,
        sampler,
        services,
        settings: settings.gateway,
        log,
      });
      tables.push(gatewayTable(result, settings.gateway));
    }

    if (settings.parts.includes('intake')) {
      const { runIntakeDrain } = await import('./intake-bench.mjs');
      sink = await startSmtpSink({ mode: 'count' });
      const drain = (label, processes, jobs) =>
        runIntakeDrain({
          root: settings.root,
          redis,
          redisEnv,
          redisPids,
          keyPrefix: settings.keyPrefix,
          label,
          processes,
          jobs,
          sink,
          sampler,
          services,
          settings: settings.intake,
          log,
        });
      const one = await drain('1p', 1, settings.intake.jobsOneProcess);
      const two = await drain('2p', 2, settings.intake.jobsOneProcess * 2);
      tables.push(intakeTable(one, two, settings.intake, settings.redisTopology));
    }

    const expected = [
      ...(settings.parts.includes('gateway') ? ['gateway', 'catalog', 'identity'] : []),
      ...(settings.parts.includes('intake') ? ['intake-worker'] : []),
    ];
    if (expected.length) tables.push(rssTable(sampler.maxima(), sampler.idle(), expected));
  } catch (err) {
    failure = err;
  } finally {
    await cleanup();
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
  }

  const printed = tables.map((t) => [formatTable(t.title, t.rows), ...t.notes].join('\n'));
  process.stdout.write(`\n${header.join('\n')}\n\n${printed.join('\n\n')}\n\n`);
  if (failure) {
    process.stdout.write(`The benchmark stopped with an error: ${failure.stack ?? failure}\n`);
    return 1;
  }
  const misses = tables.flatMap((t) => t.rows).filter(isMiss);
  const skipped = ['search', 'gateway', 'intake'].filter((p) => !settings.parts.includes(p));
  if (skipped.length) process.stdout.write(`Skipped (BENCH_ONLY): ${skipped.join(', ')}\n`);
  process.stdout.write(misses.length ? `${misses.length} budget line(s) missed.\n` : 'Every measured budget is met.\n');
  return misses.length ? 1 : 0;
}
