// A Redis Cluster of the drills' own: three masters and three replicas on
// free loopback ports, each a redis-server with AOF in its own temporary
// directory. `cluster-node-timeout` is short (configuration, as an operator
// would set it) so a replica takes over from a killed master within seconds.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { sleep } from './client.js';
import { freeClusterPort } from './ports.js';
import { startRedisProcess, type RedisProcess } from './redis-process.js';

const run = promisify(execFile);

export const CLUSTER_NODE_TIMEOUT_MS = 2_000;

export interface RedisCluster {
  nodes: RedisProcess[];
  /** `127.0.0.1:7001,127.0.0.1:7002,…`: what REDIS_CLUSTER_NODES takes. */
  seeds: string;
  /** The hash slot of `key` (CLUSTER KEYSLOT). */
  slotOf(key: string): Promise<number>;
  /** The port of the master that serves `key`'s hash slot now. */
  masterOf(key: string): Promise<number>;
  /** Ports of the nodes that are masters now (as a live node sees it). */
  masters(): Promise<number[]>;
  /** Slot ranges with the port of the master serving each (CLUSTER SLOTS). */
  slotRanges(): Promise<SlotRange[]>;
  node(port: number): RedisProcess;
  /** SIGKILL one node. */
  kill(port: number): Promise<void>;
  /**
   * Waits until a node other than `deadPort` serves every slot `deadPort`
   * served and every live node reports `cluster_state:ok`; resolves with
   * the new master's port.
   */
  waitForFailover(deadPort: number, slotsOf: number[], timeoutMs?: number): Promise<number>;
  /** Waits until every live node reports `cluster_state:ok`. */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Starts a killed node again on its port and data directory; resolves once it rejoined (a former master as a replica, in sync). */
  restart(port: number): Promise<void>;
  /** Until every master has a replica in sync: with REDIS_WAIT_REPLICAS=1 the services refuse writes on a master without one. */
  waitUntilReplicated(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface SlotRange {
  from: number;
  to: number;
  master: number;
}

/** One command on one node over a connection of its own that never retries. */
export async function oneShot<T>(port: number, fn: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

/** Starts six nodes, joins them with `redis-cli --cluster create` and waits for `cluster_state:ok`. */
export async function startRedisCluster(): Promise<RedisCluster> {
  const ports: number[] = [];
  while (ports.length < 6) {
    const port = await freeClusterPort();
    if (!ports.includes(port)) ports.push(port);
  }
  const nodes = await Promise.all(
    ports.map((port) =>
      startRedisProcess(port, {
        label: `redis ${port}`,
        args: [
          '--cluster-enabled', 'yes',
          '--cluster-config-file', 'nodes.conf',
          '--cluster-node-timeout', String(CLUSTER_NODE_TIMEOUT_MS),
          // Without this a replica that lost its master for a while never takes over.
          '--cluster-replica-validity-factor', '0',
        ],
      }),
    ),
  );
  const byPort = new Map(nodes.map((n) => [n.port, n]));
  const seeds = ports.map((p) => `127.0.0.1:${p}`).join(',');
  const stopAll = () => Promise.all(nodes.map((n) => n.stop()));

  try {
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'], {
      timeout: 30_000,
    });
  } catch (err) {
    await stopAll();
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`redis-cli --cluster create failed (is redis-cli on PATH? apt-get install redis-tools): ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }

  const live = () => nodes.filter((n) => n.pid() !== undefined);

  /** Runs `fn` against the first live node that answers. */
  async function ask<T>(fn: (redis: Redis) => Promise<T>): Promise<T> {
    let last: unknown = new Error('no node is running');
    for (const node of live()) {
      try {
        return await oneShot(node.port, fn);
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  async function slotRanges(): Promise<SlotRange[]> {
    const raw = (await ask((r) => r.call('CLUSTER', 'SLOTS'))) as [number, number, [string, number, ...unknown[]], ...unknown[]][];
    return raw.map(([from, to, master]) => ({ from, to, master: Number(master[1]) }));
  }

  async function stateOf(port: number): Promise<string> {
    try {
      const info = String(await oneShot(port, (r) => r.call('CLUSTER', 'INFO')));
      return /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
    } catch (err) {
      return (err as Error).message;
    }
  }

  async function allOk(): Promise<boolean> {
    const states = await Promise.all(live().map((n) => stateOf(n.port)));
    return states.length > 0 && states.every((s) => s === 'ok');
  }

  async function waitUntilOk(timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (!(await allOk())) {
      if (Date.now() > deadline) throw new Error(`the cluster did not reach cluster_state:ok within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  async function masterOfSlot(slot: number): Promise<number> {
    const range = (await slotRanges()).find((r) => slot >= r.from && slot <= r.to);
    if (!range) throw new Error(`no master serves slot ${slot}`);
    return range.master;
  }

  async function waitUntilReplicated(timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const masters = [...new Set((await slotRanges().catch(() => [])).map((r) => r.master))];
      const infos = await Promise.all(masters.map((port) => oneShot(port, (r) => r.info('replication')).catch(() => '')));
      if (masters.length > 0 && infos.every(hasReplicaInSync)) return;
      if (Date.now() > deadline) throw new Error(`not every master had a replica in sync within ${timeoutMs} ms`);
      await sleep(50);
    }
  }

  const node = (port: number) => {
    const found = byPort.get(port);
    if (!found) throw new Error(`no cluster node on port ${port}`);
    return found;
  };

  try {
    await waitUntilOk();
    await waitUntilReplicated();
  } catch (err) {
    await stopAll();
    throw err;
  }

  const slotOf = async (key: string) => Number(await ask((r) => r.call('CLUSTER', 'KEYSLOT', key)));

  return {
    nodes,
    seeds,
    slotOf,
    async masterOf(key) {
      return masterOfSlot(await slotOf(key));
    },
    async masters() {
      return [...new Set((await slotRanges()).map((r) => r.master))].sort((a, b) => a - b);
    },
    slotRanges,
    node,
    kill: (port) => node(port).kill(),
    async waitForFailover(deadPort, slots, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const owners = await Promise.all(slots.map((s) => masterOfSlot(s).catch(() => deadPort)));
        const taken = owners.every((o) => o !== deadPort);
        if (taken && (await allOk())) return owners[0]!;
        if (Date.now() > deadline) throw new Error(`no replica took over from ${deadPort} within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    waitUntilOk,
    waitUntilReplicated,
    async restart(port) {
      await node(port).start();
      await waitUntilOk();
      // With all six running, every master having a replica in sync means this node rejoined.
      await waitUntilReplicated();
    },
    async stop() {
      await stopAll();
    },
  };
}

/** Whether INFO replication of a master shows a replica connected and in sync. */
export function hasReplicaInSync(info: string): boolean {
  return /connected_slaves:[1-9]/.test(info) && /slave\d+:[^\r\n]*state=online/.test(info);
}
