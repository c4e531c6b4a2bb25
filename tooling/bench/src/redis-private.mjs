// `BENCH_REDIS=private` (the default when redis-server is on PATH): one
// redis-server of the run's own on a free loopback port, AOF on as production
// runs it (infra/redis.conf), removed at the end. On a machine where others
// use the shared Redis too, only a server of our own makes its CPU time and
// its command counts (INFO commandstats) this run's alone.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startOwnRedisServer } from '@msa/test-kit/redis-server';

export function redisServerOnPath() {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'redis-server')));
}

export async function startPrivateRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'msa-bench-redis-'));
  const persisted = ['--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--maxmemory-policy', 'noeviction'];
  let server;
  try {
    server = await startOwnRedisServer({ args: persisted });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const stop = async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: server.url, pid: server.pid, stop };
}

/** Calls per command so far, from INFO commandstats (`cmdstat_<name>:calls=N,…`). */
export async function commandCalls(redis) {
  const text = String(await redis.info('commandstats'));
  const calls = new Map();
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(m[1], Number(m[2]));
  return calls;
}

/**
 * Commands Redis executed between two commandCalls() snapshots, less those
 * named in `ours` (the bench's own, e.g. `{ xlen: polls }`), and INFO itself.
 */
export function commandsBetween(before, after, ours = {}) {
  let total = 0;
  for (const [name, n] of after) total += n - (before.get(name) ?? 0);
  total -= (after.get('info') ?? 0) - (before.get('info') ?? 0);
  for (const n of Object.values(ours)) total -= n;
  return Math.max(0, total);
}
