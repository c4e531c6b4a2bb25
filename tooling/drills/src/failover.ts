// Faults of the replicated topologies: SIGKILL the Redis master a chosen key
// lives on (Cluster) or the Sentinel-watched master, wait until a replica is
// promoted, bring the killed node back as a replica of it, as an operator's
// orchestrator restarts a dead pod. Each records when it killed, when a
// replica was promoted and when the promoted master had a replica again,
// for the recovery figures.
import { sleep, type Answer } from './client.js';
import type { DrillSystem } from './drill-system.js';
import type { DrillReport } from './report.js';
import { hasReplicaInSync, oneShot, type RedisCluster } from './redis-cluster.js';
import type { RedisSentinelSetup } from './redis-sentinel.js';
import type { Principal } from './shop-request-drill.js';

export interface FailoverTiming {
  killedAt?: number;
  /** A replica promoted and (Cluster) `cluster_state:ok` on every live node. */
  promotedAt?: number;
  /** The killed node back and in sync as a replica of the promoted master. */
  replicaBackAt?: number;
}

/**
 * Until the master the Sentinels name has a replica in sync: with
 * REDIS_WAIT_REPLICAS=1 the services refuse writes on a master without one,
 * so a drill's requests are accepted again only from then on. The current
 * master, not the one promoted first: under load the Sentinels may fail over
 * once more while the old master syncs.
 */
async function waitForSentinelReplica(sentinel: RedisSentinelSetup, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const master = await sentinel.masterPort().catch(() => undefined);
    const info = master === undefined ? '' : await oneShot(master, (r) => r.info('replication')).catch(() => '');
    if (/role:master/.test(info) && hasReplicaInSync(info)) return;
    if (Date.now() > deadline) throw new Error(`the Sentinels' master had no replica in sync within ${timeoutMs} ms:\n${info}`);
    await sleep(50);
  }
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
 * SIGKILL the master that serves `keyOf(…)`'s slot, wait for its replica to
 * take over, then start the killed node again and wait until it is the
 * promoted master's replica, in sync. Started again while clients still
 * route its slots to it, it takes their writes as a master for the few
 * milliseconds before it learns of the failover and then drops them: none of
 * those is answered 201, since no replica acknowledges them (REDIS_WAIT_REPLICAS).
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
    // The node learns from the others that it is now a replica.
    await cluster.restart(port);
    timing.replicaBackAt = Date.now();
    return (
      `master ${port} (slot ${slot} of ${key}; slots ${owned.map((r) => `${r.from}-${r.to}`).join(', ')}) killed, ` +
      `replica ${promoted} promoted and cluster_state:ok ${timing.promotedAt - timing.killedAt} ms later, ` +
      `${port} back as its replica ${timing.replicaBackAt - timing.killedAt} ms after the kill`
    );
  };
}

/** SIGKILL the master the Sentinels name, wait until they promote the replica, then start the old one again until it is the new master's replica. */
export function killSentinelMaster(timing: FailoverTiming) {
  return async (system: DrillSystem) => {
    const sentinel = sentinelOf(system);
    const port = await sentinel.masterPort();
    await sentinel.node(port).kill();
    timing.killedAt = Date.now();
    const promoted = await sentinel.waitForFailover(port);
    timing.promotedAt = Date.now();
    // Started as the new master's replica, as a Sentinel-aware start script does
    // (the Sentinels would convert it too, but only after their next look at it, ~10 s).
    await sentinel.node(port).start();
    await oneShot(port, (r) => r.replicaof('127.0.0.1', promoted));
    await waitForSentinelReplica(sentinel);
    timing.replicaBackAt = Date.now();
    return (
      `master ${port} killed, Sentinels promoted ${promoted} ${timing.promotedAt - timing.killedAt} ms later, ` +
      `${port} back as its replica ${timing.replicaBackAt - timing.killedAt} ms after the kill`
    );
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
  const since = (at: number | undefined) => (timing.killedAt !== undefined && at !== undefined ? at - timing.killedAt : '?');
  return (
    `${label}: sent ${f.requests}, accepted ${f.created} (201), delivered ${f.delivered}, duplicates ${f.storedTwice}, ` +
    `recovered: first 201 after the kill ${first ?? 'never'} ms, replica promoted ${since(timing.promotedAt)} ms, ` +
    `killed node back as a replica ${since(timing.replicaBackAt)} ms after the kill`
  );
}
