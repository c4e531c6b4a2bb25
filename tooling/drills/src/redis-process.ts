// A redis-server of the drill's own, with AOF written on every command, so it
// can be killed with SIGKILL and started again on the same port and data
// directory without losing an acknowledged write (what infra/redis.conf asks
// of production, made strict).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { drillConfig } from './config.js';
import { LineLog } from './line-log.js';

export interface RedisProcess {
  port: number;
  url: string;
  log: LineLog;
  /** The process id while it runs. */
  pid(): number | undefined;
  /** SIGKILL: nothing is flushed beyond what AOF already holds. */
  kill(): Promise<void>;
  /** Starts again on the same port and directory (if stopped) and waits until it answers PING. */
  start(): Promise<void>;
  /** SIGKILL, `downMs` without Redis, then the same port and AOF directory again. */
  restart(downMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisProcessOptions {
  /** Names the process in logs: `redis`, `redis 7001`, `sentinel 7010`. */
  label?: string;
  /** Arguments after the defaults (a later one wins): cluster mode, `--replicaof`. */
  args?: string[];
  /**
   * A Sentinel instead of a data node: the text of its configuration file,
   * written once into its own directory (Sentinel rewrites that file as it learns).
   */
  sentinelConfig?: string;
}

export async function startRedisProcess(port: number, options: RedisProcessOptions = {}): Promise<RedisProcess> {
  if (!onPath('redis-server')) {
    throw new Error('The drills run a redis-server of their own: put Redis 7 on PATH (apt-get install redis-server).');
  }
  const dir = mkdtempSync(join(tmpdir(), 'msa-drill-redis-'));
  const log = new LineLog(options.label ?? 'redis');
  let child: ChildProcess | undefined;
  const configFile = join(dir, 'sentinel.conf');
  if (options.sentinelConfig !== undefined) writeFileSync(configFile, options.sentinelConfig);
  const args =
    options.sentinelConfig !== undefined
      ? [configFile, '--sentinel', '--port', String(port), '--bind', '127.0.0.1', '--dir', dir]
      : [
          '--port', String(port),
          '--bind', '127.0.0.1',
          '--dir', dir,
          '--appendonly', 'yes',
          '--appendfsync', 'always',
          '--save', '',
          '--maxmemory-policy', 'noeviction',
          // Keyspace events of hashes, strings and sorted sets let a drill strike right after a write it waits for.
          '--notify-keyspace-events', 'Kh$z',
          ...(options.args ?? []),
        ];

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  async function start() {
    if (running()) return;
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    log.attach(proc);
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code) => reject(new Error(`${log.name} exited with ${code}:\n${log.tail(20)}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForPong(port, 15_000), exited]);
  }

  async function kill() {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    log,
    pid: () => (running() ? child?.pid : undefined),
    kill,
    start,
    async restart(downMs = 0) {
      await kill();
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** PING over a bare socket until PONG: `-LOADING` while the AOF is read counts as not yet. */
async function waitForPong(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ping(port)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}

function onPath(command: string): boolean {
  return drillConfig.path.split(delimiter).some((dir) => dir && existsSync(join(dir, command)));
}
