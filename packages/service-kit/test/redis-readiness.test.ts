// /readyz must not call a service ready whose client cannot serve its keys.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, pingRedis } from '../src/redis.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

describe('pingRedis with a single-node client', () => {
  let node: ChildProcess;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'msa-cluster-node-'));
    node = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--dir', dir, '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const probe = createRedis(`redis://127.0.0.1:${port}`, 'api', { retryStrategy: () => 100 });
    for (let i = 0; i < 100; i++) {
      if ((await probe.ping().catch(() => null)) === 'PONG') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    probe.disconnect();
  });

  afterAll(() => {
    node?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses readiness on a Cluster node, naming REDIS_CLUSTER_NODES, although the node answers PING', async () => {
    const client = createRedis(`redis://127.0.0.1:${port}`, 'api');

    const pong = await client.ping();
    const ready = await pingRedis(client).then(() => 'ready', (err: Error) => err.message);
    client.disconnect();

    expect(pong).toBe('PONG');
    expect(ready).toContain('REDIS_CLUSTER_NODES');
  });

  it('is ready on a plain Redis', async () => {
    const client = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'api');

    await expect(pingRedis(client)).resolves.toBeUndefined();
    client.disconnect();
  });
});
