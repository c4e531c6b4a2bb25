// @module `waitForReplicas(redis, keys, { replicas, timeoutMs })`: Redis `WAIT` on the connection that wrote each key's slot, so a write is on n replicas before it is promised; `ReplicasNotAcknowledgedError`
// A replication barrier: Redis acknowledges a write on the master alone and
// copies it to the replicas afterwards, so a master that dies in between
// takes the write with it and the promoted replica never saw it. `WAIT n t`,
// sent on the connection that wrote, blocks until n replicas acknowledged
// every write of that connection so far (or t ms passed) and answers how many
// did. On a Cluster a connection writes to several masters: WAIT goes to the
// master of each key's slot, on the very connection the client routes that
// slot's commands through.
import calculateSlot from 'cluster-key-slot';
import { Cluster, type Redis } from 'ioredis';
import { answerWithin } from './answer-within.js';
import type { RedisClient } from './redis-client.js';

export interface ReplicationOptions {
  /** Replicas that must acknowledge the writes; 0 turns the barrier off. */
  replicas: number;
  /** How long WAIT blocks for them (ms, at least 1: WAIT 0 would block for ever). */
  timeoutMs: number;
}

/** Fewer replicas than asked acknowledged the writes in time, or the master could not be asked. */
export class ReplicasNotAcknowledgedError extends Error {
  constructor(
    readonly wanted: number,
    readonly acknowledged: number,
    /** `host:port` of the master asked, or the slot that has none. */
    readonly node: string,
    options?: { cause?: unknown },
  ) {
    super(`${acknowledged} of ${wanted} replicas acknowledged the writes on ${node}`, options);
    this.name = 'ReplicasNotAcknowledgedError';
  }
}

/** How much longer than WAIT's own timeout its answer may take before the client stops waiting. */
const CLIENT_MARGIN_MS = 1_000;

/**
 * Resolves with the fewest replicas that acknowledged on any master involved
 * once every master of `keys` (the client itself, unless a Cluster) has at
 * least `replicas` acknowledging this connection's writes; rejects with
 * ReplicasNotAcknowledgedError otherwise. Call it after the last write.
 */
export async function waitForReplicas(redis: RedisClient, keys: readonly string[], { replicas, timeoutMs }: ReplicationOptions): Promise<number> {
  if (replicas <= 0) return 0;
  const nodes = redis instanceof Cluster ? mastersOf(redis, keys, replicas) : [redis];
  const counts = await Promise.all(
    nodes.map(async (node) => {
      let acknowledged: number;
      try {
        // A node that is not connected would hold WAIT in its offline queue
        // (a worker connection retries for ever): answer at once instead.
        if (node.status !== 'ready') throw new Error(`connection is ${node.status}`);
        acknowledged = Number(await answerWithin(node.wait(replicas, Math.max(1, timeoutMs)), timeoutMs + CLIENT_MARGIN_MS, 'WAIT'));
      } catch (err) {
        throw new ReplicasNotAcknowledgedError(replicas, 0, nameOf(node), { cause: err });
      }
      if (acknowledged < replicas) throw new ReplicasNotAcknowledgedError(replicas, acknowledged, nameOf(node));
      return acknowledged;
    }),
  );
  return Math.min(...counts);
}

/**
 * The connections the Cluster client writes `keys` through: for each key's
 * slot, the pool's instance of the master its slot map names. A slot the map
 * has no reachable master for cannot have its writes confirmed.
 */
function mastersOf(cluster: Cluster, keys: readonly string[], replicas: number): Redis[] {
  const byAddress = new Map(cluster.nodes('master').map((node) => [nameOf(node), node]));
  const chosen = new Set<Redis>();
  for (const key of keys) {
    const slot = calculateSlot(key);
    const address = cluster.slots[slot]?.[0];
    const node = address === undefined ? undefined : byAddress.get(address);
    if (!node) throw new ReplicasNotAcknowledgedError(replicas, 0, address ?? `slot ${slot}`);
    chosen.add(node);
  }
  return [...chosen];
}

function nameOf(node: Redis): string {
  return `${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379}`;
}
