// Redis storage of shop requests: one hash per request plus a sorted set of
// live requests that are stored but not yet on the intake queue. This file is
// the only code that knows the key names.
import { ShopRequestBody, ShopRequestResult } from '@msa/contracts';
import type { Redis } from 'ioredis';
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

export interface ShopRequestStore {
  /** Stores a request; a live one is first marked pending, so no crash can lose it. */
  create(record: StoredShopRequest): Promise<void>;
  get(id: string): Promise<StoredShopRequest | null>;
  /** The request is on the intake queue: record it and leave the pending set. */
  markQueued(id: string): Promise<void>;
  /** Pending ids marked at or before `before` (oldest first). */
  pendingIds(before: Date, limit: number): Promise<string[]>;
  /** Forgets a pending id (already queued, or never stored). */
  dropPending(id: string): Promise<void>;
}

/** Sandbox requests are test data: kept long enough to read back, then they expire. */
export const SANDBOX_TTL_SECONDS = 30 * 24 * 3600;

export function createShopRequestStore(redis: Redis, prefix: string): ShopRequestStore {
  const recordKey = (id: string) => `${prefix}shop-request:${id}`;
  const pendingKey = `${prefix}shop-requests:pending`;

  return {
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
        return;
      }
      // Pending first, record second: a crash in between leaves an id without a
      // record, which the reconciler drops; the other order could leave a
      // stored request nobody ever enqueues.
      await redis.zadd(pendingKey, Date.parse(result.created_at), result.id);
      await redis.hset(key, fields);
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
    },
  };
}
