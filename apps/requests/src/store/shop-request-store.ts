// Redis storage of shop requests: one hash per request plus a sorted set of
// live requests that are stored but not yet on the intake queue. This file is
// the only code that knows the key names.
import { ConfirmedSubmitter, Quote, RequestTrace, ShopRequestBody, ShopRequestResult } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';

/** `pending`: live, not yet queued. `queued`: handed to the intake queue. `none`: sandbox, never queued. */
export type IntakeState = 'pending' | 'queued' | 'none';

export interface StoredShopRequest {
  result: ShopRequestResult;
  body: ShopRequestBody;
  ownerId: string;
  intake: IntakeState;
  trace: RequestTrace;
  /**
   * A live request made by a person who confirmed their address on the
   * consent page (authorization code grant): that address and the client.
   */
  submitter?: ConfirmedSubmitter;
  /** The quote the request named, as it was when the request was accepted. */
  quote?: Quote;
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
  /**
   * Stores a request. A live one stays pending until queued; a sandbox one is
   * finished. Throws ClaimAbandonedError when the reconciler gave its claim
   * up meanwhile (and refunded its unit): the request was not stored.
   */
  create(record: StoredShopRequest): Promise<void>;
  get(id: string): Promise<StoredShopRequest | null>;
  /**
   * Gives up the claim of an id that was never stored, so that a POST still
   * working on it can no longer store it; null when it was stored (or never
   * claimed). The claim is returned once: a second call finds it given up.
   */
  abandon(id: string): Promise<PendingClaim | null>;
  /** The request is on the intake queue: record it and leave the pending set. */
  markQueued(id: string): Promise<void>;
  /** Pending ids marked at or before `before` (oldest first). */
  pendingIds(before: Date, limit: number): Promise<string[]>;
  /** Forgets a pending id (queued, finished, or given up). */
  dropPending(id: string): Promise<void>;
  /** The POST of `id` gives up before storing it: forgets the id and its claim. */
  forget(id: string): Promise<void>;
}

export class ClaimAbandonedError extends Error {
  constructor(id: string) {
    super(`the claim of ${id} was given up before it was stored`);
    this.name = 'ClaimAbandonedError';
  }
}

/** Sandbox requests are test data: kept long enough to read back, then they expire. */
export const SANDBOX_TTL_SECONDS = 30 * 24 * 3600;

// Stores the record unless its claim was given up; ARGV: ttl (0 = keep), then field/value pairs.
const STORE_CLAIMED = `
if redis.call('HEXISTS', KEYS[1], 'abandoned') == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if ARGV[1] == '0' then redis.call('PERSIST', KEYS[1]) else redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 1`;

const DROP_UNSTORED_CLAIM = `if redis.call('HEXISTS', KEYS[1], 'result') == 0 then redis.call('DEL', KEYS[1]) end return 0`;

// Gives up a claim whose record was never stored, once; returns owner, day, mode.
const ABANDON = `
if redis.call('HEXISTS', KEYS[1], 'result') == 1 or redis.call('HEXISTS', KEYS[1], 'abandoned') == 1 then return false end
local claim = redis.call('HMGET', KEYS[1], 'owner', 'day', 'mode')
if not claim[1] then return false end
redis.call('HSET', KEYS[1], 'abandoned', '1')
return claim`;

/** How long the claim of a request that was never stored is kept for the reconciler. */
const CLAIM_TTL_SECONDS = 2 * 24 * 3600;

export function createShopRequestStore(redis: RedisClient, prefix: string): ShopRequestStore {
  const recordKey = (id: string) => `${prefix}shop-request:${id}`;
  const pendingKey = `${prefix}shop-requests:pending`;

  return {
    async begin(id, { ownerId, day, mode }) {
      // Pending first, claim second: a crash in between leaves an id the
      // reconciler drops (nothing was reserved yet); the claim sits on the
      // record's own key and expires unless the record is stored. A retry
      // under the same id claims it afresh.
      await redis.zadd(pendingKey, Date.now(), id);
      const results = await redis
        .multi()
        .hset(recordKey(id), 'owner', ownerId, 'day', day, 'mode', mode)
        .hdel(recordKey(id), 'abandoned')
        .expire(recordKey(id), CLAIM_TTL_SECONDS)
        .exec();
      // EXEC reports a failed command in its results, not by rejecting.
      const failed = results?.find(([err]) => err)?.[0];
      if (failed) throw failed;
    },

    async create({ result, body, ownerId, intake, trace, submitter, quote }) {
      const fields = {
        result: JSON.stringify(result),
        body: JSON.stringify(body),
        owner: ownerId,
        intake,
        trace: JSON.stringify(trace),
        // Stored with the request, so the reconciler's job carries it too.
        ...(submitter ? { submitter: JSON.stringify(submitter) } : {}),
        ...(quote ? { quote: JSON.stringify(quote) } : {}),
      };
      // A live request is pending again (a no-op unless a reconciler dropped
      // it) before its record exists: a stored live request is always in the
      // pending set until queued.
      if (intake !== 'none') await redis.zadd(pendingKey, Date.parse(result.created_at), result.id);
      const ttl = intake === 'none' ? SANDBOX_TTL_SECONDS : 0;
      const stored = await redis.eval(STORE_CLAIMED, 1, recordKey(result.id), String(ttl), ...Object.entries(fields).flat());
      if (stored !== 1) throw new ClaimAbandonedError(result.id);
      if (intake === 'none') await redis.zrem(pendingKey, result.id);
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
        ...(raw.submitter ? { submitter: ConfirmedSubmitter.parse(JSON.parse(raw.submitter)) } : {}),
        ...(raw.quote ? { quote: Quote.parse(JSON.parse(raw.quote)) } : {}),
      };
    },

    async abandon(id) {
      const claim = (await redis.eval(ABANDON, 1, recordKey(id))) as [string, string, string] | null;
      if (!claim) return null;
      const [ownerId, day, mode] = claim;
      return mode === 'live' || mode === 'sandbox' ? { ownerId, day, mode } : null;
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
      // A given-up claim stays until it expires, so a late POST still finds it given up.
      await redis.zrem(pendingKey, id);
    },

    async forget(id) {
      await redis.zrem(pendingKey, id);
      await redis.eval(DROP_UNSTORED_CLAIM, 1, recordKey(id));
    },
  };
}
