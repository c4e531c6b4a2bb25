// redis-server children of a test's own, on free loopback ports, without
// persistence. (service-kit cannot use test-kit's, which depends on it.)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

export interface RedisNode {
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stops it and removes its directory. */
  remove(): Promise<void>;
}

/** A redis-server child without persistence; `args` follow the defaults. */
export async function redisNode(args: string[] = []): Promise<RedisNode> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'msa-replication-'));
  let child: ChildProcess | undefined;
  const node: Omit<RedisNode, 'remove'> = {
    port,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args], { stdio: 'ignore' });
      const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        for (let i = 0; i < 200; i++) {
          if ((await probe.connect().then(() => probe.ping()).catch(() => null)) === 'PONG') return;
          probe.disconnect();
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`redis-server on ${port} did not start`);
      } finally {
        probe.disconnect();
      }
    },
    async stop() {
      const proc = child;
      child = undefined;
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGKILL');
      await exited;
    },
  };
  await node.start();
  return Object.assign(node, {
    async remove() {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  });
}
