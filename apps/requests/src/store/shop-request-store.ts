// Redis storage of shop requests: one hash per request plus a sorted set of
// live requests that are stored but not yet on the intake queue. This file is
// the only code that knows the key names.
import { ShopRequestBody, ShopRequestResult } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { z } from 'zod';

/** `pending`: live, not yet queued. `queued`: handed to the intake queue. `none`: sandbox, never queued. */
export type IntakeState = 'pending' | 'queued' | 'none';

export const RequestTrace = z.object({ request_id: z.string().optional(), traceparent: z.string().optional() });
export type RequestTrace = z.infer<typeof RequestTrace>;

export interface StoredShopRequest {
  result: ShopRequestResult;
  body: ShopRequestBody;
  ownerId: string;
  intake: IntakeState;
  trace: RequestTrace;
}

/** Who an unfinished request belongs to and which day's quota it counts on. */
export interface PendingClaim {
  ownerId: string;
  day: string;
  mode: 'live' | 'sandbox';
}

export interface ShopRequestStore {
  /**
   * Marks an id as being created, with its owner and quota day, before its
   * quota unit is reserved: if the process dies before `create`, the
   * reconciler finds the id and gives the unit back.
   */
  begin(id: string, claim: PendingClaim): Promise<void>;
  /** Stores a request. A live one stays pending until queued; a sandbox one is finished. */
  create(record: StoredShopRequest): Promise<void>;
  get(id: string): Promise<StoredShopRequest | null>;
  /** The claim of an id that `begin` marked, stored or not. */
  claimOf(id: string): Promise<PendingClaim | null>;
  /** The request is on the intake queue: record it and leave the pending set. */
  markQueued(id: string): Promise<void>;
  /** Pending ids marked at or before `before` (oldest first). */
  pendingIds(before: Date, limit: number): Promise<string[]>;
  /** Forgets a pending id (already queued or finished), and the claim of one never stored. */
  dropPending(id: string): Promise<void>;
}

/** Sandbox requests are test data: kept long enough to read back, then they expire. */
export const SANDBOX_TTL_SECONDS = 30 * 24 * 3600;

const DROP_UNSTORED_CLAIM = `if redis.call('HEXISTS', KEYS[1], 'result') == 0 then redis.call('DEL', KEYS[1]) end return 0`;

/** How long the claim of a request that was never stored is kept for the reconciler. */
const CLAIM_TTL_SECONDS = 2 * 24 * 3600;

export function createShopRequestStore(redis: RedisClient, prefix: string): ShopRequestStore {
  const recordKey = (id: string) => `${prefix}shop-request:${id}`;
  const pendingKey = `${prefix}shop-requests:pending`;

  return {
    async begin(id, { ownerId, day, mode }) {
      // Pending first, claim second: a crash in between leaves an id the
      // reconciler drops (nothing was reserved yet); the claim sits on the
      // record's own key and expires unless the record is stored.
      await redis.zadd(pendingKey, Date.now(), id);
      await redis.multi().hset(recordKey(id), 'owner', ownerId, 'day', day, 'mode', mode).expire(recordKey(id), CLAIM_TTL_SECONDS).exec();
    },

    async create({ result, body, ownerId, intake, trace }) {
      const key = recordKey(result.id);
      const fields = {
        result: JSON.stringify(result),
        body: JSON.stringify(body),
        owner: ownerId,
        intake,
        trace: JSON.stringify(trace),
      };
      if (intake === 'none') {
        await redis.multi().hset(key, fields).expire(key, SANDBOX_TTL_SECONDS).exec();
        await redis.zrem(pendingKey, result.id);
        return;
      }
      // Pending again (a no-op unless a reconciler dropped it meanwhile), then
      // the record: a stored live request is always in the pending set until queued.
      await redis.zadd(pendingKey, Date.parse(result.created_at), result.id);
      await redis.multi().hset(key, fields).persist(key).exec();
    },

    async get(id) {
      const raw = await redis.hgetall(recordKey(id));
      if (!raw.result || !raw.body || !raw.owner) return null;
      return {
        result: ShopRequestResult.parse(JSON.parse(raw.result)),
        body: ShopRequestBody.parse(JSON.parse(raw.body)),
        ownerId: raw.owner,
        intake: (raw.intake as IntakeState | undefined) ?? 'pending',
        trace: RequestTrace.parse(JSON.parse(raw.trace ?? '{}')),
      };
    },

    async claimOf(id) {
      const [owner, day, mode] = await redis.hmget(recordKey(id), 'owner', 'day', 'mode');
      if (!owner || !day || (mode !== 'live' && mode !== 'sandbox')) return null;
      return { ownerId: owner, day, mode };
    },

    async markQueued(id) {
      // Two keys in different hash slots, so two commands: the record first,
      // then the pending set; a crash between leaves a queued id the
      // reconciler simply drops.
      await redis.hset(recordKey(id), 'intake', 'queued', 'queued_at', new Date().toISOString());
      await redis.zrem(pendingKey, id);
    },

    async pendingIds(before, limit) {
      return redis.zrangebyscore(pendingKey, '-inf', before.getTime(), 'LIMIT', 0, limit);
    },

    async dropPending(id) {
      await redis.zrem(pendingKey, id);
      // A claim whose request was never stored goes with it; a stored record stays.
      await redis.eval(DROP_UNSTORED_CLAIM, 1, recordKey(id));
    },
  };
}
