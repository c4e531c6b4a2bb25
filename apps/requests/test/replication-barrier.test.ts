// Shop requests with REDIS_WAIT_REPLICAS=1 on a master and a replica of the
// test's own: a 201 only for writes the replica holds, a 503 with
// Retry-After while it is away, and the same id for the same
// Idempotency-Key once it is back.
import { startReplicatedRedis, type ReplicatedRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShopRequestStore } from '../src/store/shop-request-store.js';
import { buildShopRequest, keysMatching, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

let pair: ReplicatedRedis;
let h: Harness;
/** Set by a test: stops the replica right after the next record is stored, before anything else is written. */
let stopReplicaAfterStore = false;

beforeAll(async () => {
  pair = await startReplicatedRedis();
  // The harness talks to REDIS_URL: here the test's own master (each test file runs in a process of its own).
  process.env.REDIS_URL = pair.master.url;
  const target: { store?: ShopRequestStore } = {};
  // The real store; `create` can stop the replica right after the record is written, as a crash of it would.
  const striking = new Proxy({} as ShopRequestStore, {
    get(_, name: keyof ShopRequestStore) {
      if (name === 'create') {
        return async (record: Parameters<ShopRequestStore['create']>[0]) => {
          await target.store!.create(record);
          if (stopReplicaAfterStore) {
            stopReplicaAfterStore = false;
            await pair.stopReplica();
          }
        };
      }
      const member = target.store![name];
      return typeof member === 'function' ? member.bind(target.store) : member;
    },
  });
  // Generous: a loaded machine can keep a replica's acknowledgement on loopback for hundreds of ms.
  h = await startHarness('replication-barrier', { replication: { replicas: 1, timeoutMs: 2_000 }, store: striking });
  target.store = h.store;
});

afterAll(async () => {
  await h?.close();
  await pair?.close();
});

async function recordsOf(shopName: string): Promise<string[]> {
  const ids: string[] = [];
  for (const key of await keysMatching(h.redis, `${h.prefix}shop-request:req_*`)) {
    if ((await h.redis.hget(key, 'body'))?.includes(shopName)) ids.push(key.slice(key.lastIndexOf(':') + 1));
  }
  return ids;
}

describe('a shop request on a Redis whose replica must acknowledge its writes', () => {
  it('answers 201 once the replica holds the record, the Idempotency-Key binding and the intake job', async () => {
    const created = await h.post(buildShopRequest({ shop_name: 'Replicated Fanshop' }), { principal: liveWriter(), idempotencyKey: 'replicated-1' });
    const id = String(created.body.id);

    const record = await pair.onReplica.hget(`${h.prefix}shop-request:${id}`, 'owner');
    const job = await pair.onReplica.exists(h.intake.queue.toKey(id));
    const [, bindings] = await pair.onReplica.scan('0', 'MATCH', `${h.prefix}shop-requests:idem:*`, 'COUNT', 1000);

    expect(created.status).toBe(201);
    expect(record).not.toBeNull();
    expect(job).toBe(1);
    expect(bindings.length).toBeGreaterThan(0);
  });

  it('answers 503 with Retry-After while the replica is away, and 201 with one stored request for the same Idempotency-Key once it is back', async () => {
    const principal = sandboxWriter();
    const send = () => h.post(buildShopRequest({ shop_name: 'Unreplicated Fanshop' }), { principal, sandbox: true, idempotencyKey: 'unreplicated-1' });

    await pair.stopReplica();
    const refused = await send();
    await pair.startReplica();
    const accepted = await send();
    const replay = await send();

    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.body.error.code).toBe('service_unavailable');
    expect(accepted.status).toBe(201);
    expect(replay.body.id).toBe(accepted.body.id);
    expect(await recordsOf('Unreplicated Fanshop')).toEqual([accepted.body.id]);
  });

  it('keeps a live request stored when its replica goes away after the store, and answers its retry with the same id once the replica is back', async () => {
    const principal = liveWriter();
    const send = () => h.post(buildShopRequest({ shop_name: 'Stored Alone Fanshop' }), { principal, idempotencyKey: 'stored-alone-1' });

    stopReplicaAfterStore = true;
    const refused = await send();
    const storedMeanwhile = await recordsOf('Stored Alone Fanshop');
    await pair.startReplica();
    const retried = await send();
    const onReplicaNow = await pair.onReplica.hget(`${h.prefix}shop-request:${String(retried.body.id)}`, 'owner');

    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(storedMeanwhile).toHaveLength(1);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.body.id).toBe(storedMeanwhile[0]);
    expect(onReplicaNow).toBe(principal.id);
    expect(await recordsOf('Stored Alone Fanshop')).toEqual(storedMeanwhile);
  });

  it('answers without waiting for replicas when REDIS_WAIT_REPLICAS is 0, the replica away or not', async () => {
    const off = await startHarness('replication-off');
    try {
      await pair.stopReplica();
      const created = await off.post(buildShopRequest({ shop_name: 'Unwatched Fanshop' }), { principal: liveWriter(), idempotencyKey: 'unwatched-1' });

      expect(created.status).toBe(201);
    } finally {
      await pair.startReplica();
      await off.close();
    }
  });
});
