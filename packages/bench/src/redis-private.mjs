// `BENCH_REDIS=private` (the default when redis-server is on PATH): one
// redis-server of the run's own on a free loopback port, AOF on as production
// runs it (infra/redis.conf), removed at the end. On a machine where others
// use the shared Redis too, only a server of our own makes its CPU time and
// its command counts (INFO commandstats) this run's alone.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.mjs';

export function redisServerOnPath() {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, 'redis-server')));
}

function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export async function startPrivateRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'msa-bench-redis-'));
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--appendfsync', 'everysec', '--save', '', '--maxmemory-policy', 'noeviction'];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`redis-server on ${port} did not start`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid, stop };
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
