import { randomBytes, randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from './logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A caller's X-Request-Id when it is sane, else a new one. */
export function pickRequestId(header: unknown): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}

/**
 * The same trace with a new span id for this hop, or a new trace when the
 * header is missing or malformed (W3C Trace Context).
 */
export function nextTraceparent(header: unknown): string {
  const m = typeof header === 'string' ? TRACEPARENT.exec(header) : null;
  const traceId = m && !/^0+$/.test(m[1]!) ? m[1]! : randomBytes(16).toString('hex');
  const flags = m ? m[3]! : '01';
  return `00-${traceId}-${randomBytes(8).toString('hex')}-${flags}`;
}

export function traceIdOf(traceparent: string): string | undefined {
  return TRACEPARENT.exec(traceparent)?.[1];
}

/** Request id and trace context on the request, the response and every log line. */
export function requestContext(logger: Logger, { logRequests = true } = {}): RequestHandler {
  return (req, res, next) => {
    req.id = pickRequestId(req.headers['x-request-id']);
    req.traceparent = nextTraceparent(req.headers.traceparent);
    req.log = logger.child({ requestId: req.id, traceId: traceIdOf(req.traceparent) });
    res.setHeader('X-Request-Id', req.id);
    if (logRequests) {
      const start = process.hrtime.bigint();
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        const line = { method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 };
        if (res.statusCode >= 500) req.log.error(line, 'request failed');
        else req.log.debug(line, 'request');
      });
    }
    next();
  };
}
