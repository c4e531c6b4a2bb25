// What a run measures and for how long. The defaults are the budget's
// conditions (DESIGN.md "Performance budget"); the variables exist to look
// closer at one part, never to make a budget pass.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceMemoryEnv, serviceNodeOptions } from '../../../scripts/node-options.mjs';
import { redisServerOnPath } from './redis-private.mjs';

const int = (name, def) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got '${raw}'`);
  return n;
};

export const PARTS = ['search', 'gateway', 'intake', 'uploads'];

export function loadSettings() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
  const only = (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((p) => !PARTS.includes(p));
  if (unknown.length) throw new Error(`BENCH_ONLY knows ${PARTS.join(', ')}; got ${unknown.join(', ')}`);
  // A Redis of the run's own unless told otherwise: a shared one's CPU and command counts include other users'.
  const redisTopology = process.env.BENCH_REDIS || (redisServerOnPath() ? 'private' : 'single');
  if (!['private', 'single', 'cluster'].includes(redisTopology)) throw new Error(`BENCH_REDIS is private, single or cluster; got '${redisTopology}'`);
  // An app's V8 flags as deployed (infra/Dockerfile); BENCH_NODE_OPTIONS replaces them to measure others ('' = none).
  const nodeOptionsOf = (app) => process.env.BENCH_NODE_OPTIONS ?? serviceNodeOptions(root, app);
  const nodeOptions = nodeOptionsOf();
  // The images' MALLOC_ARENA_MAX unless the caller sets one ('' = glibc's default);
  // every process the bench starts, references included, inherits it.
  const arenas = process.env.MALLOC_ARENA_MAX ?? serviceMemoryEnv(root).MALLOC_ARENA_MAX;
  if (arenas) process.env.MALLOC_ARENA_MAX = arenas;
  else delete process.env.MALLOC_ARENA_MAX;
  const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
  if (profileDir) mkdirSync(profileDir, { recursive: true });
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return {
    root,
    redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
    /** `single`: REDIS_URL; `cluster`: a 3+3 Redis Cluster the benchmark starts and removes itself. */
    redisTopology,
    // One prefix per run: every key this run writes starts with it, and is deleted at the end.
    keyPrefix: `bench-${randomBytes(4).toString('hex')}:`,
    parts: only.length ? only : PARTS,
    profileDir,
    nodeOptions,
    /** Where every figure of the run is written (`.data/bench/latest.json`). */
    resultsFile: process.env.BENCH_RESULTS_FILE ? resolve(process.env.BENCH_RESULTS_FILE) : join(root, '.data', 'bench', 'latest.json'),
    search: {
      productsFile: join(root, 'apps', 'catalog', 'data', 'products.json'),
      entryCount: 10_000,
      searches: int('BENCH_SEARCHES', 5_000),
      warmup: 500,
    },
    gateway: {
      query: process.env.BENCH_QUERY || 'hoodie',
      connections: int('BENCH_CONNECTIONS', 50),
      warmupSeconds: int('BENCH_WARMUP_SECONDS', 2),
      durationSeconds: int('BENCH_DURATION_SECONDS', 10),
      nodeArgs,
      profileDir,
      /** The references' flags: the services' default. */
      nodeOptions,
      nodeOptionsOf,
      countModules: int('BENCH_MODULE_COUNT', 1) > 0,
      idleSeconds: int('BENCH_IDLE_SECONDS', 40),
    },
    intake: {
      // Twice the jobs for two processes, so both drains last about as long.
      jobsOneProcess: int('BENCH_INTAKE_JOBS', 3_000),
      concurrency: int('BENCH_INTAKE_CONCURRENCY', 50),
      maxSeconds: 45,
      nodeArgs,
      nodeOptions: nodeOptionsOf('intake-worker'),
      countModules: int('BENCH_MODULE_COUNT', 1) > 0,
      idleSeconds: int('BENCH_IDLE_SECONDS', 40),
    },
  };
}
