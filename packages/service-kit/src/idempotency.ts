// @module `idempotency({ redis, keyPrefix, scope, lockSeconds?, bodyCodec?, recover?, onceOnly? })`: `Idempotency-Key` replay within 24 h, 409 for another body or a duplicate still running; crash-safe with `bindIdempotency(res, id)` before the handler commits and `recover` for a retry of an attempt that died
// Idempotency-Key support (the Stripe model): the same key and body within
// 24 h replays the first response; the same key with another body is 409;
// a concurrent duplicate waits for the first to finish and replays it.
//
// A crash must not turn one request into two. A handler therefore binds the
// key to the resource it is about to create (`bindIdempotency`) before the
// creation commits; the binding lives as long as a saved response. A retry
// that finds a binding but no saved response asks the route to answer from
// the stored resource (`recover`) once the dead attempt's lock has expired,
// and only when that resource was never stored runs the handler again, with
// the bound resource id to reuse.
//
// An answer given once only (`onceOnly`) is recorded as it is written: its
// record goes to Redis in the same tick, just before the answer. A crash
// before that leaves the binding, so the first retry gets the answer nobody
// saw; a crash after it leaves the record, so a repeat is refused.
import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { RedisClient } from './redis.js';
import { appError, type AppError } from './errors.js';

/** How long a request in progress holds its key: a crashed holder makes retries wait this long. */
// Twice the gateway's upstream timeout: no live request takes longer.
export const DEFAULT_IDEMPOTENCY_LOCK_SECONDS = 30;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface SavedResponse {
  status: number;
  contentType: string;
  body: string;
}
interface BoundRecord {
  state: 'bound';
  hash: string;
  resource: string;
  /** The answer the handler will give, for routes that can replay only from it (sealed secrets). */
  response?: SavedResponse;
}
interface DoneRecord extends SavedResponse {
  state: 'done';
  hash: string;
}
type IdempotencyRecord = BoundRecord | DoneRecord;

export interface RecoverArgs {
  /** The id the interrupted request bound the key to. */
  resource: string;
  /** The response bound with it, body already opened by the codec. */
  response?: SavedResponse;
  req: Request;
  res: Response;
}

export interface IdempotencyOptions {
  redis: RedisClient;
  keyPrefix: string;
  /** Whose key space this is (the principal, or the client IP when anonymous). */
  scope: (req: Request) => string;
  ttlSeconds?: number;
  /** Lifetime of the lock of a request in progress; see DEFAULT_IDEMPOTENCY_LOCK_SECONDS. */
  lockSeconds?: number;
  waitMs?: number;
  /**
   * Seals the stored response body and opens it on replay, for responses that
   * carry a secret which must not sit in Redis in clear. Both calls receive the
   * request's Idempotency-Key; `open` may throw an AppError.
   */
  bodyCodec?: IdempotencyBodyCodec;
  /**
   * Answers a retry whose first attempt bound the key but never saved its
   * response (it crashed). Answer from the stored resource and return true,
   * or return false when the resource was never stored: the handler then runs
   * again with `idempotencyOf(res).resource` set to the bound id.
   */
  recover?: (args: RecoverArgs) => Promise<boolean>;
  /**
   * For answers given once only (credentials and their secrets): a repeat
   * after the request answered gets this error instead of a replay, and the
   * answer is never stored, only its status, recorded as the answer is
   * written. An answer bound by an attempt that died before answering was
   * given to nobody, so `recover` may still give it once.
   */
  onceOnly?: () => AppError;
}

export interface IdempotencyBodyCodec {
  seal(body: string, idempotencyKey: string): string;
  open(stored: string, idempotencyKey: string): string;
}

/** What the middleware hands the handler through `res.locals`. */
export interface IdempotencyHandle {
  /** The bound resource id of an interrupted earlier attempt, to create under the same id. */
  resource?: string;
  /** The Redis key the binding and the saved response are written to (a replication barrier waits on its master). */
  key: string;
  /**
   * Binds the key to the resource about to be created, before the creation
   * commits. Throws idempotency_key_in_use when the claim was lost meanwhile.
   */
  bind(resource: string, response?: SavedResponse): Promise<void>;
  /**
   * Checks, right before an answer given once only (`onceOnly`), that this
   * request still holds its key. Throws idempotency_key_in_use when its lock
   * expired and a retry took over: that retry gives the answer instead.
   */
  confirm(): Promise<void>;
}

const HANDLE = 'idempotency';

/** The handle of an idempotent request, or undefined when it carries no Idempotency-Key. */
export function idempotencyOf(res: Response): IdempotencyHandle | undefined {
  return res.locals[HANDLE] as IdempotencyHandle | undefined;
}

/** Binds when the request is idempotent; a no-op otherwise. */
export async function bindIdempotency(res: Response, resource: string, response?: SavedResponse): Promise<void> {
  await idempotencyOf(res)?.bind(resource, response);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

export function fingerprint(req: Request): string {
  return createHash('sha256')
    .update(`${req.method} ${req.baseUrl}${req.path}\n${JSON.stringify(canonical(req.body ?? null))}`)
    .digest('hex');
}

// The record (binding or saved response, 24 h) and the lock of the request
// working on it (`<token>.<body hash>`, short-lived) share the caller's hash
// slot. A binding whose lock is gone belongs to a request that died.
const CLAIM = `
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'EX', ARGV[2]) then
  return {1, redis.call('GET', KEYS[1]) or false, false}
end
return {0, redis.call('GET', KEYS[1]) or false, redis.call('GET', KEYS[2]) or false}`;

// Writes the record (unless ARGV[2] is empty) and releases the lock (when
// ARGV[4] is 1), only while the lock is still ours.
const WRITE = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
if ARGV[4] == '1' then redis.call('DEL', KEYS[2]) end
return 1`;

interface Keys {
  record: string;
  lock: string;
}

async function write(redis: RedisClient, keys: Keys, lock: string, record: string | null, ttlSeconds: number, release: boolean): Promise<boolean> {
  return (await redis.eval(WRITE, 2, keys.record, keys.lock, lock, record ?? '', String(ttlSeconds), release ? '1' : '0')) === 1;
}

export function idempotency({
  redis,
  keyPrefix,
  scope,
  ttlSeconds = 86_400,
  lockSeconds = DEFAULT_IDEMPOTENCY_LOCK_SECONDS,
  waitMs = 10_000,
  bodyCodec,
  recover,
  onceOnly,
}: IdempotencyOptions): RequestHandler {
  return async (req, res, next) => {
    const header = req.get('idempotency-key');
    if (header === undefined) return next();
    if (!KEY_PATTERN.test(header)) {
      throw appError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
        fields: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
      });
    }
    const hash = fingerprint(req);
    // One hash slot per caller (`{…}`), so the key is Cluster-safe alongside its scope.
    const base = `${keyPrefix}idem:{${scope(req)}}:${createHash('sha256').update(header).digest('hex')}`;
    const keys: Keys = { record: base, lock: `${base}:lock` };
    const lock = `${randomBytes(12).toString('base64url')}.${hash}`;
    const deadline = Date.now() + waitMs;
    const open = (body: string) => (bodyCodec ? bodyCodec.open(body, header) : body);
    const release = () => write(redis, keys, lock, null, ttlSeconds, true);

    for (;;) {
      const [got, rawRecord, rawLock] = (await redis.eval(CLAIM, 2, keys.record, keys.lock, lock, String(lockSeconds))) as [number, string | null, string | null];
      const record = rawRecord ? (JSON.parse(rawRecord) as IdempotencyRecord) : null;
      const holderHash = rawLock?.slice(rawLock.indexOf('.') + 1);
      if ((record && record.hash !== hash) || (holderHash !== undefined && holderHash !== hash)) {
        if (got) await release();
        throw appError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
      }
      if (record?.state === 'done') {
        if (got) await release();
        if (onceOnly) throw onceOnly();
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(record.status).type(record.contentType).send(open(record.body));
        return;
      }
      if (got) {
        if (record?.state === 'bound' && recover) {
          // Bound, yet nobody holds the lock: the first attempt died after choosing its resource.
          let answered = false;
          let restoreSend: (() => void) | undefined;
          try {
            const response = record.response && { ...record.response, body: open(record.response.body) };
            res.setHeader('Idempotent-Replayed', 'true');
            // Given once now, and recorded as it is written: a later repeat finds the request answered.
            if (onceOnly) restoreSend = beforeAnswer(res, () => recordAnswer(req, redis, keys, lock, ttlSeconds, () => outcomeOf(hash, res, '')));
            answered = await recover({ resource: record.resource, req, res, ...(response ? { response } : {}) });
          } catch (err) {
            await release().catch(() => undefined);
            throw err;
          }
          if (answered) {
            if (!onceOnly) await release();
            return;
          }
          restoreSend?.();
          res.removeHeader('Idempotent-Replayed');
        }
        // Never stored: run the handler, creating the bound resource again if there is one.
        track(req, res, redis, keys, lock, hash, {
          ttlSeconds,
          header,
          bodyCodec,
          keepBody: !onceOnly,
          resource: record?.state === 'bound' ? record.resource : undefined,
        });
        return next();
      }
      if (Date.now() >= deadline) {
        throw appError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress.', {
          headers: { 'Retry-After': String(Math.min(lockSeconds, 5)) },
        });
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
}

function doneRecord(hash: string, res: Response, body: string): string {
  return JSON.stringify({
    state: 'done',
    hash,
    status: res.statusCode,
    contentType: String(res.getHeader('content-type') ?? 'application/json'),
    body,
  } satisfies DoneRecord);
}

/** The record an answer leaves, or null: 5xx and 429 are not outcomes of the request, and a retry runs it again (with the bound resource, if any). */
function outcomeOf(hash: string, res: Response, body: string | undefined): string | null {
  return res.statusCode < 500 && res.statusCode !== 429 && body !== undefined ? doneRecord(hash, res, body) : null;
}

/**
 * Writes an answer's record and releases the lock, sending the command now,
 * in this tick: called right before an answer given once only is written,
 * its record is on its way to Redis before the answer is. A deferred call
 * (a promise callback, the next tick) could let the answer out first.
 */
function recordAnswer(req: Request, redis: RedisClient, keys: Keys, lock: string, ttlSeconds: number, record: () => string | null): void {
  let written: Promise<boolean>;
  try {
    written = write(redis, keys, lock, record(), ttlSeconds, true);
  } catch (err) {
    // A throwing seal is logged like a failed write.
    written = Promise.reject(err);
  }
  written.catch((err: unknown) => req.log?.error({ err }, 'idempotency record not written'));
}

/** Runs `before` right before the first answer is written; returns what puts res.send back. */
function beforeAnswer(res: Response, before: () => void): () => void {
  const send = res.send;
  const restore = () => {
    res.send = send;
  };
  res.send = function (this: Response, body?: unknown) {
    restore();
    before();
    return send.call(this, body);
  } as Response['send'];
  return restore;
}

interface TrackOptions {
  ttlSeconds: number;
  header: string;
  bodyCodec?: IdempotencyBodyCodec;
  /** False for answers given once only: the record keeps the status and drops the body. */
  keepBody: boolean;
  resource?: string | undefined;
}

/** Offers the handler its bind(), captures the response body and stores it as the key's outcome once sent. */
function track(req: Request, res: Response, redis: RedisClient, keys: Keys, lock: string, hash: string, opts: TrackOptions) {
  const seal = (body: string) => (opts.bodyCodec ? opts.bodyCodec.seal(body, opts.header) : body);
  // A write under this request's lock (none with null); it fails when the lock expired and another attempt took over: let that one finish.
  const writeHeld = async (record: string | null) => {
    if (!(await write(redis, keys, lock, record, opts.ttlSeconds, false))) {
      throw appError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress.', {
        headers: { 'Retry-After': '1' },
      });
    }
  };
  const handle: IdempotencyHandle = {
    ...(opts.resource ? { resource: opts.resource } : {}),
    key: keys.record,
    async bind(resource, response) {
      await writeHeld(
        JSON.stringify({
          state: 'bound',
          hash,
          resource,
          ...(response ? { response: { ...response, body: seal(response.body) } } : {}),
        } satisfies BoundRecord),
      );
    },
    async confirm() {
      await writeHeld(null);
    },
  };
  res.locals[HANDLE] = handle;

  let captured: string | undefined;
  let settled = false;
  const settle = () => {
    if (settled) return;
    settled = true;
    recordAnswer(req, redis, keys, lock, opts.ttlSeconds, () =>
      outcomeOf(hash, res, captured === undefined ? undefined : opts.keepBody ? seal(captured) : ''),
    );
  };
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    if (typeof body === 'string') captured = body;
    else if (Buffer.isBuffer(body)) captured = body.toString('utf8');
    // Given once only: recorded before it is written (see the top of this file).
    if (!opts.keepBody) settle();
    const sent = send(body as never);
    // Settled when the answer is given, not when it is delivered: a client
    // that hung up meanwhile still gets it on retry. A handler still working
    // after a hang-up keeps its lock until it answers.
    settle();
    return sent;
  };
  // Answers written without send() (none today) still release the lock.
  res.on('finish', settle);
}
