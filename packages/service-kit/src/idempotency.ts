// Idempotency-Key support (the Stripe model): the same key and body within
// 24 h replays the first response; the same key with another body is 409;
// a concurrent duplicate waits for the first to finish and replays it.
import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { appError } from './errors.js';

const PENDING_TTL_SECONDS = 60;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

interface PendingRecord {
  state: 'pending';
  hash: string;
}
interface DoneRecord {
  state: 'done';
  hash: string;
  status: number;
  contentType: string;
  body: string;
}
type IdempotencyRecord = PendingRecord | DoneRecord;

export interface IdempotencyOptions {
  redis: Redis;
  keyPrefix: string;
  /** Whose key space this is (the principal, or the client IP when anonymous). */
  scope: (req: Request) => string;
  ttlSeconds?: number;
  waitMs?: number;
  /**
   * Seals the stored response body and opens it on replay, for responses that
   * carry a secret which must not sit in Redis in clear. Both calls receive the
   * request's Idempotency-Key; `open` may throw an AppError.
   */
  bodyCodec?: IdempotencyBodyCodec;
}

export interface IdempotencyBodyCodec {
  seal(body: string, idempotencyKey: string): string;
  open(stored: string, idempotencyKey: string): string;
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

export function idempotency({ redis, keyPrefix, scope, ttlSeconds = 86_400, waitMs = 10_000, bodyCodec }: IdempotencyOptions): RequestHandler {
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
    const key = `${keyPrefix}idem:{${scope(req)}}:${createHash('sha256').update(header).digest('hex')}`;
    const pending = JSON.stringify({ state: 'pending', hash } satisfies PendingRecord);
    const deadline = Date.now() + waitMs;

    for (;;) {
      if ((await redis.set(key, pending, 'EX', PENDING_TTL_SECONDS, 'NX')) === 'OK') {
        recordOutcome(req, res, redis, key, hash, ttlSeconds, bodyCodec && ((body) => bodyCodec.seal(body, header)));
        return next();
      }
      const raw = await redis.get(key);
      if (raw === null) continue; // the first attempt failed and released the key: claim it
      const record = JSON.parse(raw) as IdempotencyRecord;
      if (record.hash !== hash) {
        throw appError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body.');
      }
      if (record.state === 'done') {
        res.setHeader('Idempotent-Replayed', 'true');
        const body = bodyCodec ? bodyCodec.open(record.body, header) : record.body;
        res.status(record.status).type(record.contentType).send(body);
        return;
      }
      if (Date.now() >= deadline) {
        throw appError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress.');
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
}

/** Captures the response body and stores it as the key's outcome once sent. */
function recordOutcome(
  req: Request,
  res: Response,
  redis: Redis,
  key: string,
  hash: string,
  ttlSeconds: number,
  seal?: (body: string) => string,
) {
  let captured: string | undefined;
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    if (typeof body === 'string') captured = body;
    else if (Buffer.isBuffer(body)) captured = body.toString('utf8');
    return send(body as never);
  };
  res.on('finish', () => {
    // 5xx and 429 are not outcomes of the request: let a retry run it again.
    const keep = res.statusCode < 500 && res.statusCode !== 429 && captured !== undefined;
    // Inside a promise so a throwing seal is logged like a failed write.
    const write = Promise.resolve().then((): Promise<unknown> =>
      keep
        ? redis.set(
            key,
            JSON.stringify({
              state: 'done',
              hash,
              status: res.statusCode,
              contentType: String(res.getHeader('content-type') ?? 'application/json'),
              body: seal ? seal(captured!) : captured!,
            } satisfies DoneRecord),
            'EX',
            ttlSeconds,
          )
        : redis.del(key),
    );
    write.catch((err: unknown) => req.log?.error({ err }, 'idempotency record not written'));
  });
}
