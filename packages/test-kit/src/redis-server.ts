// A redis-server of a test's own, for outage tests: the shared Redis others
// use must never be stopped. Needs `redis-server` on PATH (Debian's
// redis-server package); no persistence, so a restart starts empty.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export interface OwnRedisServer {
  url: string;
  port: number;
  /** The process id while it runs, for reading its CPU time from /proc. */
  readonly pid: number | undefined;
  /** Stops the server (SIGTERM) and resolves once it has exited. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves when it accepts connections. */
  start(): Promise<void>;
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts a redis-server child on a free loopback port; `args` are added to
 * its command line after the defaults, so they win (e.g. `--cluster-enabled
 * yes` for a node that serves no slot until it is given some, or
 * `--appendonly yes --dir <dir>` for a server that persists as production's).
 */
export async function startOwnRedisServer({ args = [] }: { args?: string[] } = {}): Promise<OwnRedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    if (child) return;
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', ...args], {
      stdio: 'ignore',
    });
    child = proc;
    proc.once('exit', () => {
      if (child === proc) child = null;
    });
    const spawned = new Promise<never>((_, reject) => proc.once('error', (err) => reject(new Error(`cannot start redis-server: ${err.message}`))));
    for (let i = 0; i < 100; i++) {
      if (await Promise.race([accepts(port), spawned])) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`redis-server did not accept connections on port ${port}`);
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child?.pid;
    },
    start,
    stop,
  };
}

export interface ReplicatedRedis {
  master: OwnRedisServer;
  replica: OwnRedisServer;
  /** A client on the replica, to read what it holds; its errors while the replica is stopped are expected. */
  onReplica: Redis;
  /** Stops the replica; resolves once the master counts none. */
  stopReplica(): Promise<void>;
  /** Starts the replica again; resolves once it is in sync. */
  startReplica(): Promise<void>;
  /** Stops both and removes their directory. */
  close(): Promise<void>;
}

async function replicationInfo(port: number): Promise<string> {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  try {
    return await client.info('replication');
  } finally {
    client.disconnect();
  }
}

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await probe()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}

/** A master and its replica of a test's own, the replica in sync when this resolves. */
export async function startReplicatedRedis(): Promise<ReplicatedRedis> {
  // The replica writes the master's snapshot to its directory when it syncs: a temporary one.
  const dir = mkdtempSync(join(tmpdir(), 'msa-replica-'));
  const master = await startOwnRedisServer({ args: ['--dir', dir] });
  const replica = await startOwnRedisServer({ args: ['--dir', dir, '--dbfilename', 'replica.rdb', '--replicaof', '127.0.0.1', String(master.port)] });
  const inSync = () => until('the replica is in sync', async () => /master_link_status:up/.test(await replicationInfo(replica.port)));
  await inSync();
  const onReplica = new Redis(replica.port, '127.0.0.1', { maxRetriesPerRequest: 1 });
  onReplica.on('error', () => undefined);
  return {
    master,
    replica,
    onReplica,
    async stopReplica() {
      await replica.stop();
      await until('the master counts no replica', async () => /connected_slaves:0\b/.test(await replicationInfo(master.port)));
    },
    async startReplica() {
      await replica.start();
      await inSync();
    },
    async close() {
      onReplica.disconnect();
      await replica.stop();
      await master.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
