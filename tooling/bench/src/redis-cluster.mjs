// `BENCH_REDIS=cluster`: a 3-master + 3-replica Redis Cluster of the
// benchmark's own on free loopback ports (AOF on, as production runs it), so
// the intake budget can be measured where BullMQ's keys share one slot and
// every other key is spread over three masters. Removed again at the end.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { freePort } from './processes.mjs';

const run = promisify(execFile);

function isFree(port) {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10000) is free too. */
async function freeNodePort(taken) {
  for (;;) {
    const port = await freePort();
    if (!taken.includes(port) && port + 10_000 <= 65_535 && (await isFree(port + 10_000))) return port;
  }
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

async function clusterState(seeds) {
  const client = new Cluster(seeds, { lazyConnect: true, clusterRetryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return /cluster_state:(\w+)/.exec(String(await client.cluster('INFO')))?.[1];
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

/** Starts the six nodes and joins them; resolves once `cluster_state:ok`. */
export async function startBenchCluster(log) {
  const dir = mkdtempSync(join(tmpdir(), 'msa-bench-cluster-'));
  const ports = [];
  while (ports.length < 6) ports.push(await freeNodePort(ports));
  const nodes = ports.map((port) => {
    const nodeDir = join(dir, String(port));
    mkdirSync(nodeDir);
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', nodeDir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'];
    const child = spawn('redis-server', [...args, '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '5000'], { stdio: 'ignore' });
    return { port, child };
  });
  const stop = async () => {
    await Promise.all(
      nodes.map(({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        return exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const { port } of nodes) {
      const deadline = Date.now() + 10_000;
      while (!(await accepts(port))) {
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    log(`Redis Cluster: joining 3 masters + 3 replicas on ports ${ports.join(', ')}`);
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], { timeout: 30_000 });
    const seeds = ports.map((port) => ({ host: '127.0.0.1', port }));
    const deadline = Date.now() + 30_000;
    while ((await clusterState(seeds)) !== 'ok') {
      if (Date.now() > deadline) throw new Error('the cluster did not reach cluster_state:ok within 30 s');
      await new Promise((r) => setTimeout(r, 100));
    }
    return {
      seeds,
      /** What REDIS_CLUSTER_NODES takes. */
      seedList: ports.map((p) => `127.0.0.1:${p}`).join(','),
      pids: nodes.map(({ port, child }) => ({ name: `redis :${port}`, pid: child.pid })),
      stop,
    };
  } catch (err) {
    await stop();
    throw new Error(`could not start a Redis Cluster (redis-server and redis-cli on PATH?): ${err.message}`);
  }
}
