/*
 * Redis state of the intake worker, the only code that knows its key names:
 *   <prefix>intake:steps:{<id>}  hash: finished steps (and steps begun) of one shop request
 *   <prefix>intake:logos:{<id>}  hash: downloaded logos until the operator e-mail is sent
 *   <prefix>intake:list          stream: the internal request list
 *   {<prefix>intake:list}:entry:<id>  string: the list entry of one request, the record of the last step
 * The two per-request keys share the `{<id>}` hash tag, so the script that
 * writes them together stays within one Cluster slot; an entry marker's tag
 * is the stream's whole name, which puts it in the stream's slot.
 */
import { intakeCopyKeys, LIMITS } from '@msa/contracts';
import { luaScript, type RedisClient } from '@msa/service-kit';
import { waitForReplicas, type ReplicationOptions } from '@msa/service-kit/redis';

export type Step = 'logos' | 'operator' | 'contact' | 'list';

/**
 * Per step: when it finished (worker clock, ms), except `logos` (the notes
 * on logos not attached, JSON); `<step>_pending`: when it began. The list
 * step is recorded by its entry marker, written in the same script as the
 * entry; `contact` and `list` appear only in records of earlier versions,
 * which wrote them here.
 */
export type StepState = Partial<Record<Step | `${Step}_pending`, string>>;

export interface StoredLogo {
  url: string;
  filename?: string;
  contentType?: string;
  size?: number;
  /** Why the logo is not attached (German, for the operator). */
  note?: string;
  data?: Buffer;
}

/** Kept long after delivery: a request queued again later must still find its steps done. */
export const STEPS_TTL_SECONDS = 30 * 24 * 3600;
/** Logos wait this long for an operator e-mail that keeps failing (a retry of a failed job). */
export const LOGOS_TTL_SECONDS = 7 * 24 * 3600;

/*
 * Marks a step finished (and the next one begun) and writes or deletes the
 * stored logos in the same atomic step.
 * KEYS: steps, logos. ARGV: steps ttl, step, value, next step ('' = none),
 * logos mode ('delete' | 'set'), logos ttl, then field/value pairs of the
 * logos hash.
 */
const RECORD_STEP = `
redis.call('DEL', KEYS[2])
if ARGV[5] == 'set' then
  redis.call('HSET', KEYS[2], unpack(ARGV, 7))
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3], ARGV[4] .. '_pending', ARGV[3])
else
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
`;

const MARK_PENDING = `
redis.call('HSET', KEYS[1], ARGV[2] .. '_pending', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[1])
`;

/*
 * Appends a request's list entry once: two runs of one job at the same time
 * (a lock that expired under load) get the same entry, and a retry finds the
 * entry by its marker, written in the same step. The entry is added first
 * and the marker set only if absent (SET NX GET): a marker already there
 * means another run appended, so this run's entry is taken back in the same
 * script and nobody ever reads two. That is one read fewer than looking
 * for the marker first, on every delivery. Entries older than the list's
 * retention go as new ones arrive (MINID; a few a day at most), so the list
 * keeps what the requests themselves keep.
 * KEYS: stream, marker. ARGV: marker ttl, oldest id kept, then field/value pairs.
 */
const APPEND_ONCE = `
local id = redis.call('XADD', KEYS[1], 'MINID', ARGV[2], '*', unpack(ARGV, 3))
local existing = redis.call('SET', KEYS[2], id, 'NX', 'GET', 'EX', ARGV[1])
if existing then
  redis.call('XDEL', KEYS[1], id)
  return existing
end
return id
`;

const recordStep = luaScript(RECORD_STEP);
const markPending = luaScript(MARK_PENDING);
const appendOnce = luaScript(APPEND_ONCE);

export interface RecordOptions {
  /** The step that begins now. */
  next?: Step;
  /** Replaces the stored logos, or deletes them ('delete'). */
  logos?: { set: StoredLogo[] } | 'delete';
  /** Stored as the step's value instead of the time (the logo notes). */
  value?: string;
}

export interface IntakeStore {
  /**
   * The step record of `id`; with `markOperatorBegun`, the operator e-mail
   * is marked begun in the same call unless the record shows it sent or
   * begun (the returned record is the one before; empty when it had no
   * mark, since nothing a delivery without logos reads is in it then).
   */
  begin(id: string, opts: { markOperatorBegun: boolean }): Promise<StepState>;
  /** Records `step` finished. Its key already exists (begun steps) unless logos are set. */
  record(id: string, step: Step, opts?: RecordOptions): Promise<void>;
  markPending(id: string, step: Step): Promise<void>;
  /** Forgets that a step began, when its attempt certainly did nothing outside (an e-mail the server never took). */
  clearPending(id: string, step: Step): Promise<void>;
  /** The logos saved with the `logos` step, or null when they expired. */
  readLogos(id: string): Promise<StoredLogo[] | null>;
  /** Appends the list entry of `id`, or returns the one already appended for it. */
  appendListEntry(id: string, fields: Record<string, string>): Promise<string>;
  /** The list entry appended for `id`, if any. */
  findListEntry(id: string): Promise<string | null>;
  /**
   * Resolves once the replicas hold the list entry of `id` and its marker
   * (REDIS_WAIT_REPLICAS; at once when 0); rejects with
   * ReplicasNotAcknowledgedError otherwise, so the job fails and is retried
   * instead of completing on a master that may lose its delivery record.
   */
  confirmListEntry(id: string): Promise<void>;
  readList(count: number): Promise<{ id: string; fields: Record<string, string> }[]>;
}

/** The internal list keeps entries as long as the requests service keeps live requests by default (SHOP_REQUEST_LIVE_RETENTION_DAYS). */
export const LIST_RETENTION_MS = LIMITS.liveShopRequestRetentionDays * 86_400_000;

export function createIntakeStore(
  redis: RedisClient,
  keyPrefix: string,
  replication: ReplicationOptions = { replicas: 0, timeoutMs: 1 },
  listRetentionMs = LIST_RETENTION_MS,
): IntakeStore {
  const stepsKey = (id: string) => `${keyPrefix}intake:steps:{${id}}`;
  // The requests service erases a person's copies under the same names (contracts `intakeCopyKeys`).
  const { logos: logosKey, list: listKey, entry: entryKey } = intakeCopyKeys(keyPrefix);

  return {
    async begin(id, { markOperatorBegun }) {
      const key = stepsKey(id);
      if (!markOperatorBegun) return (await redis.hgetall(key)) as StepState;
      // The mark first, and the record read only when the mark was there
      // already (a retry, or an attempt racing this one). Every write that
      // records an e-mail begun or sent comes after this mark, in every
      // version so far, and taking the mark back happens only before any
      // was: a record without it holds nothing a delivery without logos
      // reads. HSETNX leaves another attempt's mark in place and says so.
      const replies = await redis.pipeline().hsetnx(key, 'operator_pending', Date.now()).expire(key, STEPS_TTL_SECONDS).exec();
      if (!replies) throw new Error('the step record mark returned no replies');
      for (const [err] of replies) if (err) throw err;
      if (replies[0]![1] === 1) return {};
      return (await redis.hgetall(key)) as StepState;
    },

    async record(id, step, opts = {}) {
      const value = opts.value ?? String(Date.now());
      if (!opts.logos) {
        // One field write on a key a begun step created: no script, no TTL to set again.
        if (opts.next) await redis.hset(stepsKey(id), step, value, `${opts.next}_pending`, value);
        else await redis.hset(stepsKey(id), step, value);
        return;
      }
      const mode = opts.logos === 'delete' ? 'delete' : 'set';
      const pairs = opts.logos !== 'delete' ? logoFields(opts.logos.set) : [];
      await recordStep(
        redis,
        [stepsKey(id), logosKey(id)],
        [STEPS_TTL_SECONDS, step, value, opts.next ?? '', mode, LOGOS_TTL_SECONDS, ...pairs],
      );
    },

    async markPending(id, step) {
      await markPending(redis, [stepsKey(id)], [STEPS_TTL_SECONDS, step, Date.now()]);
    },

    async clearPending(id, step) {
      await redis.hdel(stepsKey(id), `${step}_pending`);
    },

    async readLogos(id) {
      const raw = await redis.hgetallBuffer(logosKey(id));
      const meta = raw.meta?.toString('utf8');
      if (!meta) return null;
      const logos = JSON.parse(meta) as StoredLogo[];
      return logos.map((logo, i) => {
        const data = raw[`data:${i}`];
        return data ? { ...logo, data } : logo;
      });
    },

    async appendListEntry(id, fields) {
      const oldestKept = `${Math.max(0, Date.now() - listRetentionMs)}-0`;
      const entryId = await appendOnce(redis, [listKey, entryKey(id)], [STEPS_TTL_SECONDS, oldestKept, ...Object.entries(fields).flat()]);
      if (!entryId) throw new Error('XADD returned no id');
      return String(entryId);
    },

    async findListEntry(id) {
      return redis.get(entryKey(id));
    },

    async confirmListEntry(id) {
      // The stream and the marker share one slot: one WAIT on its master.
      await waitForReplicas(redis, [listKey, entryKey(id)], replication);
    },

    async readList(count) {
      const entries = await redis.xrevrange(listKey, '+', '-', 'COUNT', count);
      return entries.map(([id, values]) => ({ id, fields: fieldsOf(values) }));
    },
  };
}

function logoFields(logos: StoredLogo[]): (string | Buffer)[] {
  const meta = logos.map(({ data: _data, ...rest }) => rest);
  const pairs: (string | Buffer)[] = ['meta', JSON.stringify(meta)];
  logos.forEach((logo, i) => {
    if (logo.data) pairs.push(`data:${i}`, logo.data);
  });
  return pairs;
}

function fieldsOf(values: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < values.length; i += 2) fields[values[i]!] = values[i + 1]!;
  return fields;
}
