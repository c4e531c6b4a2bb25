// Faults of the replicated topologies: SIGKILL the Redis master a chosen key
// lives on (Cluster) or the Sentinel-watched master, wait until a replica is
// promoted, bring the killed node back as a replica. Each records when it
// killed and when the topology was whole again, for the recovery figures.
import type { Answer } from './client.js';
import type { DrillSystem } from './drill-system.js';
import type { DrillReport } from './report.js';
import type { RedisCluster } from './redis-cluster.js';
import type { RedisSentinelSetup } from './redis-sentinel.js';
import type { Principal } from './shop-request-drill.js';

export interface FailoverTiming {
  killedAt?: number;
  /** A replica promoted and (Cluster) `cluster_state:ok` on every live node. */
  promotedAt?: number;
}

export function clusterOf(system: DrillSystem): RedisCluster {
  if (system.redisServers.kind !== 'cluster') throw new Error(`this fault needs a Redis Cluster, the system runs ${system.redisServers.kind}`);
  return system.redisServers.cluster;
}

export function sentinelOf(system: DrillSystem): RedisSentinelSetup {
  if (system.redisServers.kind !== 'sentinel') throw new Error(`this fault needs Sentinel, the system runs ${system.redisServers.kind}`);
  return system.redisServers.sentinel;
}

/**
 * SIGKILL the master that serves `keyOf(…)`'s slot and wait for its replica
 * to take over. The killed node stays down until the drill's checks are done
 * (`ensureRunning` brings it back as a replica): started again while clients
 * still route its slots to it, it accepts their queued writes as a master for
 * the few milliseconds before it learns of the failover, and then drops them
 * (see the README, "Known limits").
 */
export function killClusterMasterOf(keyOf: (system: DrillSystem, principals: Principal[]) => string | Promise<string>, timing: FailoverTiming) {
  return async (system: DrillSystem, principals: Principal[]) => {
    const cluster = clusterOf(system);
    const key = await keyOf(system, principals);
    const slot = await cluster.slotOf(key);
    const port = await cluster.masterOf(key);
    const owned = (await cluster.slotRanges()).filter((r) => r.master === port);
    await cluster.kill(port);
    timing.killedAt = Date.now();
    const promoted = await cluster.waitForFailover(port, [slot, ...owned.map((r) => r.from)]);
    timing.promotedAt = Date.now();
    return (
      `master ${port} (slot ${slot} of ${key}; slots ${owned.map((r) => `${r.from}-${r.to}`).join(', ')}) killed, ` +
      `replica ${promoted} promoted and cluster_state:ok ${timing.promotedAt - timing.killedAt} ms later`
    );
  };
}

/** SIGKILL the master the Sentinels name and wait until they promote the replica; `ensureRunning` brings the old one back. */
export function killSentinelMaster(timing: FailoverTiming) {
  return async (system: DrillSystem) => {
    const sentinel = sentinelOf(system);
    const port = await sentinel.masterPort();
    await sentinel.node(port).kill();
    timing.killedAt = Date.now();
    const promoted = await sentinel.waitForFailover(port);
    timing.promotedAt = Date.now();
    return `master ${port} killed, Sentinels promoted ${promoted} ${timing.promotedAt - timing.killedAt} ms later`;
  };
}

/** ms from the kill until the first 201 answered to a request sent after it. */
export function firstCreatedAfter(answers: Answer[], at: number): number | undefined {
  const times = answers.filter((a) => a.status === 201 && a.sentAt >= at).map((a) => a.answeredAt - at);
  return times.length ? Math.min(...times) : undefined;
}

/** The one line of figures a failover drill prints: sent, accepted, delivered, duplicates, time to recover. */
export function failoverSummary(label: string, report: DrillReport, timing: FailoverTiming): string {
  const f = report.figures;
  const first = timing.killedAt === undefined ? undefined : firstCreatedAfter(f.answers, timing.killedAt);
  const promoted = timing.killedAt !== undefined && timing.promotedAt !== undefined ? timing.promotedAt - timing.killedAt : undefined;
  return (
    `${label}: sent ${f.requests}, accepted ${f.created} (201), delivered ${f.delivered}, duplicates ${f.storedTwice}, ` +
    `recovered: first 201 after the kill ${first ?? 'never'} ms, replica promoted ${promoted ?? '?'} ms after the kill`
  );
}
