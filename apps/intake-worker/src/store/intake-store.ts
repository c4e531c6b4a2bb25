/*
 * Redis state of the intake worker, the only code that knows its key names:
 *   <prefix>intake:steps:{<id>}  hash: finished steps (and steps begun) of one shop request
 *   <prefix>intake:logos:{<id>}  hash: downloaded logos until the operator e-mail is sent
 *   <prefix>intake:list          stream: the internal request list
 *   {<prefix>intake:list}:entry:<id>  string: the list entry of one request
 * The two per-request keys share the `{<id>}` hash tag, so the script that
 * writes them together stays within one Cluster slot; an entry marker's tag
 * is the stream's whole name, which puts it in the stream's slot.
 */
import { createHash } from 'node:crypto';
import { INTAKE_LIST_STREAM } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';

export type Step = 'logos' | 'operator' | 'contact' | 'list';

/**
 * Per step: when it finished (server time, ms), except `logos` (the notes on
 * logos not attached, JSON) and `list` (the stream entry id); `<step>_pending`:
 * when it began.
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

/** How many entries after a step began are searched for an entry written before a crash. */
const LIST_RECOVERY_SCAN = 10_000;

/*
 * Marks a step finished (and the next one begun) with the server's clock,
 * optionally writing or deleting the stored logos in the same atomic step.
 * KEYS: steps, logos. ARGV: steps ttl, step, value ('' = now), next step
 * ('' = none), logos mode ('keep' | 'delete' | 'set'), logos ttl, then
 * field/value pairs of the logos hash.
 */
const RECORD_STEP = `
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local value = ARGV[3]
if value == '' then value = now end
if ARGV[5] == 'set' then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], unpack(ARGV, 7))
  redis.call('EXPIRE', KEYS[2], ARGV[6])
elseif ARGV[5] == 'delete' then
  redis.call('DEL', KEYS[2])
end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[2], value, ARGV[4] .. '_pending', now)
else
  redis.call('HSET', KEYS[1], ARGV[2], value)
end
redis.call('EXPIRE', KEYS[1], ARGV[1])
return now
`;

const MARK_PENDING = `
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
redis.call('HSET', KEYS[1], ARGV[2] .. '_pending', now)
redis.call('EXPIRE', KEYS[1], ARGV[1])
return now
`;

/*
 * Appends a request's list entry once: two runs of one job at the same time
 * (a lock that expired under load) get the same entry.
 * KEYS: stream, marker. ARGV: marker ttl, then field/value pairs.
 */
const APPEND_ONCE = `
local existing = redis.call('GET', KEYS[2])
if existing then return existing end
local id = redis.call('XADD', KEYS[1], '*', unpack(ARGV, 2))
redis.call('SET', KEYS[2], id, 'EX', ARGV[1])
return id
`;

type ScriptArg = string | number | Buffer;

/** EVALSHA, falling back to EVAL once after a Redis restart or failover forgot the script. */
function script(lua: string) {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (redis: RedisClient, keys: string[], args: ScriptArg[]): Promise<unknown> => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}

const recordStep = script(RECORD_STEP);
const markPending = script(MARK_PENDING);
const appendOnce = script(APPEND_ONCE);

export interface RecordOptions {
  /** Stored as the step's value instead of the time (the list entry id). */
  value?: string;
  /** The step that begins now. */
  next?: Step;
  logos?: { set: StoredLogo[] } | 'delete';
}

export interface IntakeStore {
  readSteps(id: string): Promise<StepState>;
  record(id: string, step: Step, opts?: RecordOptions): Promise<void>;
  markPending(id: string, step: Step): Promise<string>;
  /** Forgets that a step began, when its attempt certainly did nothing outside (an e-mail the server never took). */
  clearPending(id: string, step: Step): Promise<void>;
  /** The logos saved with the `logos` step, or null when they expired. */
  readLogos(id: string): Promise<StoredLogo[] | null>;
  /** Appends the list entry of `id`, or returns the one already appended for it. */
  appendListEntry(id: string, fields: Record<string, string>): Promise<string>;
  /** The list entry of `id` written at or after `sinceMs`, if a crash kept it from being recorded. */
  findListEntry(id: string, sinceMs: number): Promise<string | null>;
  readList(count: number): Promise<{ id: string; fields: Record<string, string> }[]>;
}

export function createIntakeStore(redis: RedisClient, keyPrefix: string): IntakeStore {
  const stepsKey = (id: string) => `${keyPrefix}intake:steps:{${id}}`;
  const logosKey = (id: string) => `${keyPrefix}intake:logos:{${id}}`;
  const listKey = `${keyPrefix}${INTAKE_LIST_STREAM}`;

  return {
    async readSteps(id) {
      return (await redis.hgetall(stepsKey(id))) as StepState;
    },

    async record(id, step, opts = {}) {
      const mode = opts.logos === 'delete' ? 'delete' : opts.logos ? 'set' : 'keep';
      const pairs = opts.logos && opts.logos !== 'delete' ? logoFields(opts.logos.set) : [];
      await recordStep(
        redis,
        [stepsKey(id), logosKey(id)],
        [STEPS_TTL_SECONDS, step, opts.value ?? '', opts.next ?? '', mode, LOGOS_TTL_SECONDS, ...pairs],
      );
    },

    async markPending(id, step) {
      return String(await markPending(redis, [stepsKey(id)], [STEPS_TTL_SECONDS, step]));
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
      const entryId = await appendOnce(redis, [listKey, `{${listKey}}:entry:${id}`], [STEPS_TTL_SECONDS, ...Object.entries(fields).flat()]);
      if (!entryId) throw new Error('XADD returned no id');
      return String(entryId);
    },

    async findListEntry(id, sinceMs) {
      // A clock step back on the Redis host is the only way an entry gets an
      // id below the time its step began; a second of slack covers it.
      let start = String(Math.max(0, sinceMs - 1000));
      let scanned = 0;
      while (scanned < LIST_RECOVERY_SCAN) {
        const page = await redis.xrange(listKey, start, '+', 'COUNT', 500);
        for (const [entryId, values] of page) {
          if (fieldsOf(values).request_id === id) return entryId;
        }
        if (page.length < 500) return null;
        scanned += page.length;
        start = `(${page[page.length - 1]![0]}`;
      }
      return null;
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
