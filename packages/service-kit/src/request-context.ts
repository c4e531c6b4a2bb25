// @module `requestContext(logger)`: `req.id` (the caller's valid `X-Request-Id` or a new one), `req.traceparent` (W3C, same trace, new span), `req.log` child logger with `requestId` and `traceId`; echoes `X-Request-Id`
import { randomFillSync } from 'node:crypto';
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { CallContext, SignedCallContext } from '@msa/contracts';
import type { Request, RequestHandler } from 'express';
import type { Logger } from './logger.js';
import { declareRequestFields } from './request-shape.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

// Every request needs up to 40 random bytes (request id, trace id, span id).
// One CSPRNG call per 4 KB instead of three per request.
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** Offset of `bytes` fresh random bytes in `pool`, refilled when spent. */
function takeRandom(bytes: number): number {
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += bytes;
  return at;
}

function randomHex(bytes: number): string {
  const at = takeRandom(bytes);
  return pool.toString('hex', at, at + bytes);
}

/** An RFC 9562 version 4 UUID from the pool. */
function poolUuid(): string {
  const at = takeRandom(16);
  pool[at + 6] = (pool[at + 6]! & 0x0f) | 0x40;
  pool[at + 8] = (pool[at + 8]! & 0x3f) | 0x80;
  const h = pool.toString('hex', at, at + 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A caller's X-Request-Id when it is sane, else a new one. */
export function pickRequestId(header: unknown): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : poolUuid();
}

/**
 * The same trace with a new span id for this hop, or a new trace when the
 * header is missing or malformed (W3C Trace Context).
 */
export function nextTraceparent(header: unknown): string {
  const m = typeof header === 'string' ? TRACEPARENT.exec(header) : null;
  if (m && !/^0+$/.test(m[1]!)) return `00-${m[1]!}-${randomHex(8)}-${m[3]!}`;
  const ids = randomHex(24);
  return `00-${ids.slice(0, 32)}-${ids.slice(32)}-${m ? m[3]! : '01'}`;
}

export function traceIdOf(traceparent: string): string | undefined {
  return TRACEPARENT.exec(traceparent)?.[1];
}

const BASE_LOGGER = Symbol('baseLogger');
const CHILD_LOGGER = Symbol('childLogger');
const STARTED = Symbol('started');
declareRequestFields('id', 'traceparent', BASE_LOGGER, CHILD_LOGGER, STARTED);

interface ContextRequest extends IncomingMessage {
  id: string;
  traceparent: string;
  path: string;
  [BASE_LOGGER]?: Logger;
  [CHILD_LOGGER]?: Logger;
  [STARTED]?: number;
}

// `req.log` is built on first use: most requests log nothing at `info`, and
// a pino child (bindings serialized, redaction set up) costs more than the
// rest of the context. The accessor lives on the prototype so requests keep
// one shape; code that assigns `req.log` still can.
if (!Object.prototype.hasOwnProperty.call(IncomingMessage.prototype, 'log')) {
  Object.defineProperty(IncomingMessage.prototype, 'log', {
    configurable: true,
    get(this: ContextRequest): Logger | undefined {
      const child = this[CHILD_LOGGER];
      if (child) return child;
      const base = this[BASE_LOGGER];
      if (!base) return undefined;
      return (this[CHILD_LOGGER] = base.child({ requestId: this.id, traceId: this.traceparent.slice(3, 35) }));
    },
    set(this: ContextRequest, logger: Logger) {
      this[CHILD_LOGGER] = logger;
    },
  });
}

// One listener shared by all requests instead of a closure per request; the
// child logger is only built when a line is written.
function logFinished(this: ServerResponse) {
  const failed = this.statusCode >= 500;
  const base = (this.req as ContextRequest)[BASE_LOGGER]!;
  if (!failed && !base.isLevelEnabled('debug')) return;
  const req = this.req as ContextRequest & { log: Logger };
  const ms = performance.now() - req[STARTED]!;
  const line = { method: req.method, path: req.path, status: this.statusCode, ms: Math.round(ms * 10) / 10 };
  if (failed) req.log.error(line, 'request failed');
  else req.log.debug(line, 'request');
}

/**
 * The context of a call: who and where from the verified `X-Internal-Auth`,
 * the request id and trace from this request (`requestContext` read them from
 * `X-Request-Id` and `traceparent`). A context of version 1 carried its own
 * request id and trace; the gateway of that release sent the same values in
 * the headers, so the headers are what counts for both.
 */
export function callContextOf(req: Pick<Request, 'id' | 'traceparent'>, signed: SignedCallContext): CallContext {
  return { principal: signed.principal, sandbox: signed.sandbox, ip: signed.ip, request_id: req.id, traceparent: req.traceparent };
}

export interface RequestContextOptions {
  /** Log failed requests (and every request at `debug`); default true. */
  logRequests?: boolean;
  /**
   * Runs when each response is sent, from the same `finish` listener, with
   * the request's start (`performance.now()`), the one the log line measures
   * from: a request timer (Metrics `timing.finished`) takes no clock of its own.
   */
  finished?: (this: ServerResponse, startedAt: number) => void;
}

/** Request id and trace context on the request, the response and every log line. */
export function requestContext(logger: Logger, { logRequests = true, finished }: RequestContextOptions = {}): RequestHandler {
  // One listener per response for the log line and `finished` together.
  const finish = function (this: ServerResponse) {
    finished!.call(this, (this.req as ContextRequest)[STARTED]!);
  };
  const logAndFinish = finished
    ? function (this: ServerResponse) {
        logFinished.call(this);
        finish.call(this);
      }
    : logFinished;
  return (req, res, next) => {
    const r = req as unknown as ContextRequest;
    req.id = pickRequestId(req.headers['x-request-id']);
    req.traceparent = nextTraceparent(req.headers.traceparent);
    r[BASE_LOGGER] = logger;
    res.setHeader('X-Request-Id', req.id);
    // Only a level that writes one of the two lines pays for the log listener.
    const logs = logRequests && logger.isLevelEnabled('error');
    if (logs || finished) r[STARTED] = performance.now();
    if (logs) res.on('finish', logAndFinish);
    else if (finished) res.on('finish', finish);
    next();
  };
}
