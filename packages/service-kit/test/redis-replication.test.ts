// The replication barrier against real servers of the test's own: a master
// with a replica that acknowledges, the same master once its replica is
// stopped, and a Cluster whose masters differ in whether their replica runs.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplicasNotAcknowledgedError, createRedis, waitForReplicas } from '../src/redis.js';
import { freePort, redisNode, type RedisNode } from './redis-node.js';

const run = promisify(execFile);

/** Until the replica on `port` says its link to the master is up. */
async function replicaInSync(port: number): Promise<void> {
  const client = new Redis(port, '127.0.0.1');
  try {
    for (let i = 0; i < 200; i++) {
      if (/master_link_status:up/.test(await client.info('replication'))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`replica ${port} never synced`);
  } finally {
    client.disconnect();
  }
}

/** Until the master on `port` counts `wanted` connected replicas. */
async function connectedReplicas(port: number, wanted: number): Promise<void> {
  const client = new Redis(port, '127.0.0.1');
  try {
    for (let i = 0; i < 200; i++) {
      if (new RegExp(`connected_slaves:${wanted}\\b`).test(await client.info('replication'))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`master ${port} never counted ${wanted} replicas`);
  } finally {
    client.disconnect();
  }
}

/** CLUSTER SLOTS as the node on `port` sees it; empty when it does not answer. */
async function slotsSeenBy(port: number): Promise<unknown[][]> {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
  try {
    return (await client.cluster('SLOTS')) as unknown[][];
  } catch {
    return [];
  } finally {
    client.disconnect();
  }
}

describe('waitForReplicas on one master and its replica', () => {
  let master: RedisNode;
  let replica: RedisNode;

  beforeAll(async () => {
    master = await redisNode();
    replica = await redisNode(['--replicaof', '127.0.0.1', String(master.port)]);
    await replicaInSync(replica.port);
  });

  afterAll(async () => {
    await replica?.remove();
    await master?.remove();
  });

  it('resolves once the replica acknowledged the write, which the replica then holds', async () => {
    const client = createRedis(`redis://127.0.0.1:${master.port}`, 'api');
    const onReplica = new Redis(replica.port, '127.0.0.1');

    await client.set('barrier:acknowledged', 'yes');
    const acknowledged = await waitForReplicas(client, ['barrier:acknowledged'], { replicas: 1, timeoutMs: 2_000 });
    const copied = await onReplica.get('barrier:acknowledged');
    client.disconnect();
    onReplica.disconnect();

    expect(acknowledged).toBe(1);
    expect(copied).toBe('yes');
  });

  it('rejects with ReplicasNotAcknowledgedError while the replica is stopped, and resolves once it is back', async () => {
    const client = createRedis(`redis://127.0.0.1:${master.port}`, 'api');

    await replica.stop();
    await connectedReplicas(master.port, 0);
    await client.set('barrier:alone', 'yes');
    const alone = await waitForReplicas(client, ['barrier:alone'], { replicas: 1, timeoutMs: 200 }).catch((err: unknown) => err);
    await replica.start();
    await replicaInSync(replica.port);
    const back = await waitForReplicas(client, ['barrier:alone'], { replicas: 1, timeoutMs: 2_000 });
    client.disconnect();

    expect(alone).toBeInstanceOf(ReplicasNotAcknowledgedError);
    expect(alone).toMatchObject({ wanted: 1, acknowledged: 0, node: `127.0.0.1:${master.port}` });
    expect(back).toBe(1);
  });

  it('asks nothing when no replica is wanted', async () => {
    const client = createRedis(`redis://127.0.0.1:${await freePort()}`, 'api', { lazyConnect: true, enableOfflineQueue: false });

    const acknowledged = await waitForReplicas(client, ['barrier:off'], { replicas: 0, timeoutMs: 200 });
    client.disconnect();

    expect(acknowledged).toBe(0);
  });

  it('counts a master it cannot reach as not acknowledged, with the connection error as the cause', async () => {
    const client = createRedis(`redis://127.0.0.1:${await freePort()}`, 'api', { enableOfflineQueue: false, retryStrategy: () => null });

    const err = await waitForReplicas(client, ['barrier:nowhere'], { replicas: 1, timeoutMs: 200 }).catch((e: unknown) => e);
    client.disconnect();

    expect(err).toBeInstanceOf(ReplicasNotAcknowledgedError);
    expect((err as Error).cause).toBeInstanceOf(Error);
  });
});

describe('waitForReplicas on a Redis Cluster', () => {
  const nodes: RedisNode[] = [];
  let client: Cluster;

  beforeAll(async () => {
    for (let i = 0; i < 6; i++) nodes.push(await redisNode(['--cluster-enabled', 'yes', '--cluster-node-timeout', '5000']));
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes']);
    client = createRedis({ kind: 'cluster', nodes: [{ host: '127.0.0.1', port: nodes[0]!.port }], tls: false }, 'api') as Cluster;
    for (let i = 0; ; i++) {
      if (i === 300) throw new Error('the Cluster never showed three masters, each with its replica');
      const info = String(await client.cluster('INFO').catch(() => ''));
      const replicas = await Promise.all(client.nodes('master').map((m) => m.info('replication').catch(() => '')));
      // Every node's own view: gossip reaches them one after another.
      const views = await Promise.all(nodes.map((n) => slotsSeenBy(n.port)));
      const whole = views.every((ranges) => ranges.length === 3 && ranges.every((r) => r.length === 4));
      if (/cluster_state:ok/.test(info) && whole && replicas.length === 3 && replicas.every((r) => /connected_slaves:1\b/.test(r))) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    for (const node of nodes) await node.remove();
  });

  /** The port of the master the client routes `key` to, and the port of that master's replica. */
  async function shardOf(key: string): Promise<{ master: number; replica: RedisNode }> {
    const slot = Number(await client.cluster('KEYSLOT', key));
    const ranges = (await client.cluster('SLOTS')) as unknown as [number, number, [string, number], [string, number]][];
    const range = ranges.find(([from, to]) => from <= slot && slot <= to)!;
    return { master: range[2][1], replica: nodes.find((n) => n.port === range[3][1])! };
  }

  it("waits on the master of each key's slot: refused where that master lost its replica, acknowledged elsewhere", async () => {
    const keys = Array.from({ length: 60 }, (_, i) => `barrier:{k${i}}`);
    const shards = await Promise.all(keys.map(async (key) => ({ key, ...(await shardOf(key)) })));
    const victim = shards[0]!;
    const other = shards.find((s) => s.master !== victim.master)!;

    await victim.replica.stop();
    await connectedReplicas(victim.master, 0);
    await client.set(victim.key, '1');
    await client.set(other.key, '1');
    const refused = await waitForReplicas(client, [victim.key, other.key], { replicas: 1, timeoutMs: 300 }).catch((err: unknown) => err);
    const elsewhere = await waitForReplicas(client, [other.key], { replicas: 1, timeoutMs: 2_000 });
    await victim.replica.start();

    expect(refused).toBeInstanceOf(ReplicasNotAcknowledgedError);
    expect(refused).toMatchObject({ node: `127.0.0.1:${victim.master}`, acknowledged: 0 });
    expect(elsewhere).toBe(1);
  });
});
