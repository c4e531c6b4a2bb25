// @module `createServiceApp({ service, logger, publicBaseUrl, internalAuthSecret, ready, metrics, formBodies })` then mount routes, then `finishServiceApp(app, …)` for the 404 and error envelopes
import { BOUNDS, type ServiceName } from '@msa/contracts';
import express, { type Express, type RequestHandler } from 'express';
import { bodyDeadline } from './body-deadline.js';
import { errorHandler, notFoundHandler, requireContentType } from './error-handler.js';
import { healthRoutes } from './health.js';
import { internalAuth } from './internal-auth.js';
import { limitJsonDepth } from './json-depth.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { requestContext } from './request-context.js';

/** In bytes: body-parser takes a number as is. */
export const BODY_LIMIT = BOUNDS.bodyMaxBytes;

export interface ServiceAppOptions {
  service: ServiceName;
  logger: Logger;
  publicBaseUrl: string;
  /** When set, every route after health needs a valid X-Internal-Auth for `service`. */
  internalAuthSecret?: string;
  ready?: () => Promise<unknown>;
  metrics?: Metrics;
  /** Also parse `application/x-www-form-urlencoded` bodies (the OAuth token endpoint). */
  formBodies?: boolean;
  /** A body not received in full this long after the request began gets 408 (body-deadline.ts; 15 s by default). */
  bodyDeadlineMs?: number;
}

/**
 * The common front of every service: request id and trace context, timing,
 * health, internal auth, JSON body parsing (at most `BOUNDS.bodyMaxBytes`, nested at most
 * `BOUNDS.jsonMaxDepth` deep, received in full within the body deadline). Mount routes on the
 * result, then call `finishServiceApp` for the 404 and error envelopes.
 */
export function createServiceApp(opts: ServiceAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const env = { publicBaseUrl: opts.publicBaseUrl };
  app.use(
    serviceFront({
      // Timed here, served on the admin port (createAdminApp); the timer
      // shares the context's `finish` listener.
      context: requestContext(opts.logger, { finished: opts.metrics?.timing.finished }),
      health: healthRoutes({ ready: opts.ready }),
      auth: opts.internalAuthSecret ? internalAuth(opts.internalAuthSecret, opts.service) : undefined,
      body: onlyWithBody([
        bodyDeadline({ ...env, ...(opts.bodyDeadlineMs ? { deadlineMs: opts.bodyDeadlineMs } : {}) }),
        requireContentType(env, opts.formBodies ? ['application/x-www-form-urlencoded'] : []),
        express.json({ limit: BODY_LIMIT }),
        limitJsonDepth(),
        ...(opts.formBodies ? [express.urlencoded({ limit: BODY_LIMIT, extended: false })] : []),
      ]),
    }),
  );
  return app;
}

const noop = () => undefined;
/** What the health router matches (case-insensitive, trailing slash allowed, as express routes). */
const HEALTH_PATH = /^\/(?:healthz|readyz)\/?$/i;

/**
 * Request context (with the timer), health, internal auth and body handling, in that
 * order, as one express layer: each layer express walks through costs a few
 * microseconds per request, and the health router runs only for its paths.
 */
function serviceFront(parts: {
  context: RequestHandler;
  health: RequestHandler;
  auth: RequestHandler | undefined;
  body: RequestHandler;
}): RequestHandler {
  const { context, health, auth, body } = parts;
  const afterAuth = (req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1], next: Parameters<RequestHandler>[2]) =>
    auth ? auth(req, res, (err?: unknown) => (err ? next(err) : body(req, res, next))) : body(req, res, next);
  return (req, res, next) => {
    // context calls next() before it returns; neither fails.
    context(req, res, noop);
    if (HEALTH_PATH.test(req.path)) return health(req, res, (err?: unknown) => (err ? next(err) : afterAuth(req, res, next)));
    afterAuth(req, res, next);
  };
}

/**
 * Runs `handlers` in order for a request that declares a body (by
 * Content-Length or Transfer-Encoding, as the body parsers decide), and skips
 * them all for one that does not: a GET then pays one header check instead of
 * a content-type check and two parsers that would each find nothing to read.
 */
export function onlyWithBody(handlers: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    if (req.headers['transfer-encoding'] === undefined && req.headers['content-length'] === undefined) return next();
    let i = 0;
    const step = (err?: unknown): void => {
      if (err || i === handlers.length) return next(err);
      void handlers[i++]!(req, res, step);
    };
    step();
  };
}

export function finishServiceApp(app: Express, opts: Pick<ServiceAppOptions, 'logger' | 'publicBaseUrl'>): Express {
  const env = { publicBaseUrl: opts.publicBaseUrl };
  app.use(notFoundHandler(env));
  app.use(errorHandler(opts.logger, env));
  return app;
}
