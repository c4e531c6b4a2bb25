// Redis storage of shop requests: one hash per request plus a sorted set of
// requests begun and not yet finished. This file is the only code that knows
// the key names, and how a record's hash shows its acceptance state
// (domain/acceptance.ts): each step checks that table in the script that
// writes it.
import { ConfirmedSubmitter, LIMITS, Quote, RequestTrace, ShopRequestBody, ShopRequestResult } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { keysMatching } from '@msa/service-kit/redis';
import {
  ACCEPTANCE_STEPS,
  Acceptance,
  AcceptanceStepRefused,
  ClaimAbandonedError,
  Intake,
  type AcceptanceState,
  type AcceptanceStepName,
  type IntakeState,
  type Mode,
} from '../domain/acceptance.js';
import { DEFAULT_MAX_STORED_BYTES, StoredRecordTooLarge } from '../domain/stored-size.js';
import type { RequestIndex } from '../privacy/store/request-index.js';

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
  /** When its personal data was erased (ISO time). */
  erasedAt?: string;
}

/** Who an unfinished request belongs to and which day's quotas it counts on. */
export interface PendingClaim {
  ownerId: string;
  day: string;
  mode: Mode;
  /** The client address's key, when a sandbox request also counts per address. */
  address?: string;
  /** The contact's mail domain as its quota counts it, when a live request also counts per domain. */
  domain?: string;
}

export interface ShopRequestStore {
  /**
   * The `claim` step: puts the id into the pending set, then writes its
   * claim (owner and quota day) before its quota unit is reserved, so that
   * if the process dies before `create` the reconciler finds the id and
   * gives the unit back. An id already stored keeps its record untouched.
   */
  begin(id: string, claim: PendingClaim): Promise<void>;
  /**
   * The `store` step. A live request stays pending until queued; a sandbox
   * one is finished. Throws ClaimAbandonedError when the reconciler gave its
   * claim up meanwhile (and refunded its unit): the request was not stored.
   * Throws StoredRecordTooLarge, before writing anything, when the record's
   * fields and values would take more bytes than the store's bound.
   */
  create(record: StoredShopRequest): Promise<void>;
  get(id: string): Promise<StoredShopRequest | null>;
  /**
   * The `abandon` step: gives up the claim of an id that was never stored,
   * so that a POST still working on it can no longer store it; null when it
   * was stored (or never claimed). The claim is returned once: a second call
   * finds it given up.
   */
  abandon(id: string): Promise<PendingClaim | null>;
  /** The `queue` step's mark: the request is on the intake queue; record it and leave the pending set. */
  markQueued(id: string): Promise<void>;
  /** Pending ids marked at or before `before` (oldest first). */
  pendingIds(before: Date, limit: number): Promise<string[]>;
  /** Forgets a pending id (queued, finished, or given up). */
  dropPending(id: string): Promise<void>;
  /** The `forget` step: the POST of `id` gives up before storing it; the id and its claim go, a stored record stays. */
  forget(id: string): Promise<void>;
}

/** The store's part in the right to erasure. */
export interface ShopRequestEraser {
  /**
   * Replaces a stored request's body, result and submitter with their erased
   * forms and records when; false when there is no stored request or it was
   * erased already. Its lifetime stays.
   */
  erasePersonal(id: string, erased: Pick<StoredShopRequest, 'body' | 'result' | 'submitter'>, erasedAt: Date): Promise<boolean>;
}

/** Sandbox requests are test data: kept a week to read back, then they expire (a per-caller cost, budgeted in docs/operations.md). */
export const SANDBOX_TTL_SECONDS = LIMITS.sandboxShopRequestRetentionDays * 24 * 3600;

/** Live requests are kept for two years unless the deployment says otherwise; the privacy notice states the same figure. */
export const DEFAULT_LIVE_RETENTION_DAYS = LIMITS.liveShopRequestRetentionDays;
export const DEFAULT_LIVE_RETENTION_SECONDS = DEFAULT_LIVE_RETENTION_DAYS * 24 * 3600;

export interface ShopRequestStoreOptions {
  /** How long a stored live request is kept (SHOP_REQUEST_LIVE_RETENTION_DAYS). */
  liveRetentionSeconds?: number;
  /** The most bytes a stored record's fields and values may take (SHOP_REQUEST_MAX_STORED_BYTES). */
  maxStoredBytes?: number;
  /** Finds a person's requests for the rights of access and erasure; every stored request is added. */
  index?: RequestIndex;
}

/** The acceptance state a record's hash shows, in Lua (an id without a hash shows `begun`). */
const STATE_OF = `
local function state_of(key)
  local f = redis.call('HMGET', key, 'result', 'intake', 'abandoned', 'owner')
  if f[1] then
    if f[2] == '${Intake.queued}' then return '${Acceptance.queued}' end
    return '${Acceptance.stored}'
  end
  if f[3] then return '${Acceptance.abandoned}' end
  if f[4] then return '${Acceptance.claimed}' end
  return '${Acceptance.begun}'
end`;

/**
 * A script that takes `step` on the record KEYS[1] when ACCEPTANCE_STEPS
 * lets it start from the record's state, answering {1, …} from `body`, and
 * otherwise writes nothing and answers {0, state}.
 */
function stepScript(step: AcceptanceStepName, body: string): string {
  const from = ACCEPTANCE_STEPS[step].from.map((state) => `['${state}'] = true`).join(', ');
  return `${STATE_OF}
local state = state_of(KEYS[1])
if not ({ ${from} })[state] then return {0, state} end
${body.trim()}`;
}

type StepReply = [0, AcceptanceState] | [1, ...string[]];

/** The scripts of the steps written on the record; `queue` is marked by plain commands after handOver checked it. */
const STEP_SCRIPTS = {
  // ARGV: claim ttl, then field/value pairs (owner, day, mode, and address or domain when counted).
  claim: stepScript(
    'claim',
    `
redis.call('HDEL', KEYS[1], 'abandoned', 'address', 'domain')
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return {1}`,
  ),
  // ARGV: ttl, then field/value pairs.
  store: stepScript(
    'store',
    `
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
return {1}`,
  ),
  // Marks the claim given up, once; answers owner, day, mode, address, domain ('' when absent).
  abandon: stepScript(
    'abandon',
    `
local claim = redis.call('HMGET', KEYS[1], 'owner', 'day', 'mode', 'address', 'domain')
redis.call('HSET', KEYS[1], 'abandoned', '1')
return {1, claim[1], claim[2], claim[3], claim[4] or '', claim[5] or ''}`,
  ),
  forget: stepScript(
    'forget',
    `
redis.call('DEL', KEYS[1])
return {1}`,
  ),
} satisfies Partial<Record<AcceptanceStepName, string>>;

// KEYS: record. ARGV: erased_at, then field/value pairs. Writes only a stored, not yet erased record.
const ERASE_PERSONAL = `
if redis.call('HEXISTS', KEYS[1], 'result') == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'erased_at') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'erased_at', ARGV[1], unpack(ARGV, 2))
return 1`;

/** How long the claim of a request that was never stored is kept for the reconciler. */
const CLAIM_TTL_SECONDS = 2 * 24 * 3600;

/** What a record costs as stored: the bytes of its hash fields' names and values. */
function storedBytesOf(fields: Record<string, string>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(fields)) bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  return bytes;
}

/** The keys the acceptance steps of `id` write (its record, the pending set), for a replication barrier after them. */
export function shopRequestKeysOf(prefix: string, id: string): string[] {
  return [recordKeyOf(prefix, id), pendingKeyOf(prefix)];
}

const recordKeyOf = (prefix: string, id: string) => `${prefix}shop-request:${id}`;

/** Every stored request's id, by a SCAN of every master: for the operator's privacy requests only, never on a hot path. */
export async function allShopRequestIds(redis: RedisClient, prefix: string): Promise<string[]> {
  const ids = (await keysMatching(redis, `${prefix}shop-request:req_*`)).map((key) => key.slice(`${prefix}shop-request:`.length));
  return ids.filter((id) => /^req_[0-9a-f]{16}$/.test(id));
}
const pendingKeyOf = (prefix: string) => `${prefix}shop-requests:pending`;

/** The hash fields a record is stored as. */
function recordFieldsOf({ result, body, ownerId, intake, trace, submitter, quote }: StoredShopRequest): Record<string, string> {
  return {
    result: JSON.stringify(result),
    body: JSON.stringify(body),
    owner: ownerId,
    intake,
    trace: JSON.stringify(trace),
    // Stored with the request, so the reconciler's job carries it too.
    ...(submitter ? { submitter: JSON.stringify(submitter) } : {}),
    ...(quote ? { quote: JSON.stringify(quote) } : {}),
  };
}

/** The record a hash holds; null for no record, or a claim not stored yet. */
function recordOfFields(raw: Record<string, string>): StoredShopRequest | null {
  if (!raw.result || !raw.body || !raw.owner) return null;
  return {
    result: ShopRequestResult.parse(JSON.parse(raw.result)),
    body: ShopRequestBody.parse(JSON.parse(raw.body)),
    ownerId: raw.owner,
    intake: (raw.intake as IntakeState | undefined) ?? Intake.pending,
    trace: RequestTrace.parse(JSON.parse(raw.trace ?? '{}')),
    ...(raw.submitter ? { submitter: ConfirmedSubmitter.parse(JSON.parse(raw.submitter)) } : {}),
    ...(raw.quote ? { quote: Quote.parse(JSON.parse(raw.quote)) } : {}),
    ...(raw.erased_at ? { erasedAt: raw.erased_at } : {}),
  };
}

export function createShopRequestStore(
  redis: RedisClient,
  prefix: string,
  options: ShopRequestStoreOptions = {},
): ShopRequestStore & ShopRequestEraser {
  const liveRetentionSeconds = options.liveRetentionSeconds ?? DEFAULT_LIVE_RETENTION_SECONDS;
  const maxStoredBytes = options.maxStoredBytes ?? DEFAULT_MAX_STORED_BYTES;
  const recordKey = (id: string) => recordKeyOf(prefix, id);
  const pendingKey = pendingKeyOf(prefix);

  async function step(name: keyof typeof STEP_SCRIPTS, id: string, args: string[]): Promise<StepReply> {
    return (await redis.eval(STEP_SCRIPTS[name], 1, recordKey(id), ...args)) as StepReply;
  }

  return {
    async begin(id, { ownerId, day, mode, address, domain }) {
      // Pending first, claim second: a crash in between leaves an id the
      // reconciler drops (nothing was reserved yet); the claim sits on the
      // record's own key and expires unless the record is stored. A retry
      // under the same id claims it afresh.
      await redis.zadd(pendingKey, Date.now(), id);
      const counted = [...(address ? ['address', address] : []), ...(domain ? ['domain', domain] : [])];
      await step('claim', id, [String(CLAIM_TTL_SECONDS), 'owner', ownerId, 'day', day, 'mode', mode, ...counted]);
    },

    async create(record) {
      const { result, body, ownerId, intake, submitter } = record;
      const fields = recordFieldsOf(record);
      const bytes = storedBytesOf(fields);
      if (bytes > maxStoredBytes) throw new StoredRecordTooLarge(result.id, bytes, maxStoredBytes);
      const sandbox = intake === Intake.none;
      // A live request is pending again (a no-op unless a reconciler dropped
      // it) before its record exists: a stored live request is always in the
      // pending set until queued.
      if (!sandbox) await redis.zadd(pendingKey, Date.parse(result.created_at), result.id);
      const ttl = sandbox ? SANDBOX_TTL_SECONDS : liveRetentionSeconds;
      const [taken, state] = await step('store', result.id, [String(ttl), ...Object.entries(fields).flat()]);
      if (taken === 0) throw state === Acceptance.abandoned ? new ClaimAbandonedError(result.id) : new AcceptanceStepRefused(result.id, 'store', state);
      if (sandbox) await redis.zrem(pendingKey, result.id);
      // After the record: an index entry never names a request that was not stored.
      await options.index?.add({ id: result.id, body, ownerId, submitter }, ttl);
    },

    async get(id) {
      return recordOfFields(await redis.hgetall(recordKey(id)));
    },

    async abandon(id) {
      const reply = await step('abandon', id, []);
      if (reply[0] === 0) return null;
      const [, ownerId, day, mode, address, domain] = reply;
      if (!ownerId || !day || (mode !== 'live' && mode !== 'sandbox')) return null;
      return { ownerId, day, mode, ...(address ? { address } : {}), ...(domain ? { domain } : {}) };
    },

    async markQueued(id) {
      // Two keys in different hash slots, so two commands: the record first,
      // then the pending set; a crash between leaves a queued id the
      // reconciler simply drops.
      await redis.hset(recordKey(id), 'intake', Intake.queued, 'queued_at', new Date().toISOString());
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
      // The claim first: when the request was stored after all (a retry
      // under the same id got there), it stays pending until queued.
      const [taken] = await step('forget', id, []);
      if (taken === 1) await redis.zrem(pendingKey, id);
    },

    async erasePersonal(id, { body, result, submitter }, erasedAt) {
      const fields = [
        'body', JSON.stringify(body),
        'result', JSON.stringify(result),
        ...(submitter ? ['submitter', JSON.stringify(submitter)] : []),
      ];
      return (await redis.eval(ERASE_PERSONAL, 1, recordKey(id), erasedAt.toISOString(), ...fields)) === 1;
    },
  };
}
