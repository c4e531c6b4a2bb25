// A Sentinel-watched Redis of the drills' own: one master, one replica and
// three Sentinels (quorum 2) on free loopback ports, each in its own
// temporary directory. `down-after-milliseconds` and `failover-timeout` are
// short (configuration, as an operator would set them) so a killed master is
// replaced within seconds.
import { sleep } from './client.js';
import { freePorts } from './ports.js';
import { oneShot } from './redis-cluster.js';
import { startRedisProcess, type RedisProcess } from './redis-process.js';

export const SENTINEL_MASTER_NAME = 'drill-master';
export const SENTINEL_DOWN_AFTER_MS = 2_000;

export interface RedisSentinelSetup {
  /** The two data nodes; which one is master changes with a failover. */
  dataNodes: RedisProcess[];
  sentinels: RedisProcess[];
  /** `127.0.0.1:p1,…`: what REDIS_SENTINELS takes. */
  sentinelSeeds: string;
  name: string;
  /** The port of the master the Sentinels name now. */
  masterPort(): Promise<number>;
  node(port: number): RedisProcess;
  /** Waits until the Sentinels name a master other than `deadPort` and it answers as master. */
  waitForFailover(deadPort: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

export async function startRedisSentinel(): Promise<RedisSentinelSetup> {
  const [masterPort0, replicaPort, ...sentinelPorts] = (await freePorts(5)) as [number, number, ...number[]];
  const master = await startRedisProcess(masterPort0, { label: `redis ${masterPort0}` });
  const replica = await startRedisProcess(replicaPort, { label: `redis ${replicaPort}`, args: ['--replicaof', '127.0.0.1', String(masterPort0)] });
  const dataNodes = [master, replica];
  const sentinels: RedisProcess[] = [];
  const stop = () => Promise.all([...sentinels, ...dataNodes].map((n) => n.stop())).then(() => undefined);
  try {
    for (const port of sentinelPorts) {
      const config = [
        `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${masterPort0} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} ${SENTINEL_DOWN_AFTER_MS}`,
        `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 5000`,
        `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
        '',
      ].join('\n');
      sentinels.push(await startRedisProcess(port, { label: `sentinel ${port}`, sentinelConfig: config }));
    }
  } catch (err) {
    await stop();
    throw err;
  }

  const byPort = new Map(dataNodes.map((n) => [n.port, n]));
  async function masterPort(): Promise<number> {
    let last: unknown = new Error('no Sentinel answers');
    for (const sentinel of sentinels) {
      try {
        const addr = (await oneShot(sentinel.port, (r) => r.call('SENTINEL', 'get-master-addr-by-name', SENTINEL_MASTER_NAME))) as [string, string] | null;
        if (addr) return Number(addr[1]);
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }
  const roleOf = (port: number) => oneShot(port, async (r) => /role:(\w+)/.exec(String(await r.info('replication')))?.[1]).catch(() => undefined);

  // Ready once the replica is in sync and every Sentinel knows both and each other.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const synced = await oneShot(replicaPort, async (r) => /master_link_status:up/.test(String(await r.info('replication')))).catch(() => false);
    const known = await Promise.all(
      sentinels.map((s) =>
        oneShot(s.port, async (r) => {
          const info = (await r.call('SENTINEL', 'master', SENTINEL_MASTER_NAME)) as string[];
          const field = (name: string) => Number(info[info.indexOf(name) + 1]);
          return field('num-slaves') >= 1 && field('num-other-sentinels') >= 2;
        }).catch(() => false),
      ),
    );
    if (synced && known.every(Boolean)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error('the Sentinels did not see the replica and each other within 20 s');
    }
    await sleep(100);
  }

  return {
    dataNodes,
    sentinels,
    sentinelSeeds: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    name: SENTINEL_MASTER_NAME,
    masterPort,
    node(port) {
      const found = byPort.get(port);
      if (!found) throw new Error(`no data node on port ${port}`);
      return found;
    },
    async waitForFailover(deadPort, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const port = await masterPort().catch(() => deadPort);
        if (port !== deadPort && (await roleOf(port)) === 'master') return port;
        if (Date.now() > until) throw new Error(`the Sentinels did not replace master ${deadPort} within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
    stop,
  };
}
