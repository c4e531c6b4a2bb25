// @module `errorHandler` (AppError as is, ZodError → 422, bad JSON → 400, too large → 413, too deep → 400, Redis unreachable → 503 with `Retry-After`, anything else → 500 revealing nothing), `notFoundHandler`, `methodNotAllowed`, `requireContentType`, `sendError`, `buildEnvelope`, `serviceUnavailableError`
import { BOUNDS, ERROR_CODES, errorDocsUrl, type ErrorCode, type ErrorEnvelope, type FieldProblem } from '@msa/contracts';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { AppError, appError, toFieldProblems } from './errors.js';
import type { Logger } from './logger.js';
import { isRedisUnavailable } from './redis-errors.js';

/** Seconds a 503 asks the caller to wait: long enough for Redis to reconnect or fail over. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** 503 `service_unavailable` with Retry-After: a fault on our side that a retry soon will not meet. */
export function serviceUnavailableError(message: string): AppError {
  return appError('service_unavailable', message, {
    headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
  });
}

export interface EnvelopeOptions {
  publicBaseUrl: string;
}

export function buildEnvelope(
  { publicBaseUrl }: EnvelopeOptions,
  code: ErrorCode,
  message: string,
  extra: { status?: number; hint?: string; fields?: FieldProblem[] } = {},
): ErrorEnvelope {
  const def = ERROR_CODES[code];
  return {
    error: {
      code,
      message,
      status: extra.status ?? def.status,
      hint: extra.hint ?? def.hint,
      docs: errorDocsUrl(publicBaseUrl, code),
      openapi: `${publicBaseUrl}/openapi.json`,
      ...(extra.fields ? { fields: extra.fields } : {}),
    },
  };
}

export function sendError(
  res: Response,
  opts: EnvelopeOptions,
  code: ErrorCode,
  message: string,
  extra: { status?: number; hint?: string; fields?: FieldProblem[]; headers?: Record<string, string> } = {},
): void {
  const envelope = buildEnvelope(opts, code, message, extra);
  for (const [k, v] of Object.entries(extra.headers ?? {})) res.setHeader(k, v);
  res.status(envelope.error.status).type('application/json').send(JSON.stringify(envelope));
}

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
}

/** The last middleware: every failure leaves as the specification's JSON envelope. */
export function errorHandler(logger: Logger, opts: EnvelopeOptions): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const log = req.log ?? logger;
    if (err instanceof AppError) {
      return sendError(res, opts, err.code, err.message, { status: err.status, ...err.extra });
    }
    if (err instanceof ZodError) {
      return sendError(res, opts, 'validation_failed', 'The request body is invalid.', {
        fields: toFieldProblems(err),
      });
    }
    const e = err as BodyParserError;
    switch (e?.type) {
      case 'entity.parse.failed':
        return sendError(res, opts, 'invalid_json', 'The request body is not valid JSON.');
      case 'entity.too.large':
        return sendError(res, opts, 'payload_too_large', `The request body is larger than ${BOUNDS.bodyMaxBytes / 1024} kB.`);
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return sendError(res, opts, 'unsupported_media_type', e.message);
      case 'request.aborted':
        return; // the client went away; nobody is left to answer
    }
    // The router cannot decode a path parameter such as `%zz`: the caller's mistake, not ours.
    if (err instanceof URIError && e.status === 400) {
      return sendError(res, opts, 'invalid_request', 'The URL path is not validly percent-encoded.');
    }
    if (e?.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      return sendError(res, opts, 'invalid_request', e.message, { status: e.status });
    }
    if (isRedisUnavailable(err)) {
      // One line per request would flood the log during an outage; the Redis
      // client already logs the outage itself.
      log.debug({ err }, 'redis unavailable');
      const e503 = serviceUnavailableError('A data store is briefly unavailable; retry after the seconds in Retry-After.');
      return sendError(res, opts, e503.code, e503.message, e503.extra);
    }
    log.error({ err }, 'unhandled error');
    return sendError(res, opts, 'internal_error', 'Something went wrong on our side.');
  };
}

/** Unknown routes: the 404 envelope, never express's HTML page. */
export function notFoundHandler(opts: EnvelopeOptions): RequestHandler {
  return (req, res) =>
    sendError(res, opts, 'not_found', `No resource at ${req.method} ${req.path}.`);
}

/** For `router.route(path).get(…).all(methodNotAllowed(['GET']))`: 405 with `Allow`. */
export function methodNotAllowed(opts: EnvelopeOptions, allowed: string[]): RequestHandler {
  const allow = [...new Set([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].join(', ');
  return (req, res) => {
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    sendError(res, opts, 'method_not_allowed', `${req.method} is not allowed on ${req.path}.`, {
      headers: { Allow: allow },
    });
  };
}

/** 415 unless a body-carrying request is JSON (or one of `also`). */
export function requireContentType(opts: EnvelopeOptions, also: string[] = []): RequestHandler {
  const accepted = ['application/json', ...also];
  return (req, res, next) => {
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (!hasBody || req.is(accepted)) return next();
    sendError(res, opts, 'unsupported_media_type', `Send the body as ${accepted.join(' or ')}.`);
  };
}
