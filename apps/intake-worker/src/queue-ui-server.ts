/*
 * The queue UI's own server. It is an operator's tool: it binds to loopback
 * by default (QUEUE_UI_HOST), so operators reach it with `kubectl
 * port-forward` and nothing on the cluster network does; the worker's admin
 * port (health, metrics) stays where probes and Prometheus reach it.
 * - One shared Basic password: wrong guesses are limited per client address
 *   and in total, 429 past either, before the password is compared.
 * - A browser holding the Basic credentials sends them to any page's
 *   request too, so writes (bull-board's PUT/POST) must come from the UI's
 *   own origin: a cross-site Origin or Sec-Fetch-Site is refused, and so is
 *   a body a form or a simple cross-site fetch can send (text/plain, forms).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  closeServer,
  errorHandler,
  limitKeyOfAddress,
  listen,
  notFoundHandler,
  requestContext,
  sendError,
  type Logger,
  type RedisClient,
} from '@msa/service-kit';
import { createFailureLimiter, rateLimitedError, setRateLimitHeaders, type FailureLimiter } from '@msa/service-kit/limits';
import type { Queue } from 'bullmq';
import express, { Router, type Express, type RequestHandler } from 'express';

const QUEUE_UI_PATH = '/admin/queues';
/** Wrong logins from one client address (IPv6: its /64) per window before 429. */
export const LOGIN_FAILURES_PER_ADDRESS = 5;
/** Wrong logins from all addresses together per window before 429: guesses spread over many addresses stop too. */
const LOGIN_FAILURES_IN_TOTAL = 20;
const LOGIN_WINDOW_SECONDS = 15 * 60;

interface QueueUiOptions {
  queue: Queue;
  redis: RedisClient;
  /** REDIS_KEY_PREFIX: the login counters live under it. */
  keyPrefix: string;
  user: string;
  password: string;
  publicBaseUrl: string;
  logger: Logger;
}

export interface RunningQueueUi {
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startQueueUi(options: QueueUiOptions & { host: string; port: number }): Promise<RunningQueueUi> {
  const { server, url, port } = await listen(createQueueUiApp(options), options.port, { host: options.host, publicBaseUrl: options.publicBaseUrl });
  return { url, port, close: () => closeServer(server) };
}

function createQueueUiApp({ queue, redis, keyPrefix, user, password, publicBaseUrl, logger }: QueueUiOptions): Express {
  const env = { publicBaseUrl };
  const limiter = (name: string, points: number) =>
    createFailureLimiter({ redis, keyPrefix: `${keyPrefix}queue-ui:${name}`, policy: `queue-ui-${name}`, points, windowSeconds: LOGIN_WINDOW_SECONDS });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger));
  app.use(
    QUEUE_UI_PATH,
    sameOriginWrites(publicBaseUrl),
    basicAuth({ user, password }, publicBaseUrl, { perAddress: limiter('login-fail-address', LOGIN_FAILURES_PER_ADDRESS), total: limiter('login-fail-total', LOGIN_FAILURES_IN_TOTAL) }),
    lazyQueueUi(queue),
  );
  app.use(notFoundHandler(env));
  app.use(errorHandler(logger, env));
  return app;
}

/**
 * bull-board, loaded on the first request that passed the login: it is most
 * of a worker's modules, and most workers never serve it.
 */
function lazyQueueUi(queue: Queue): Router {
  let ui: Promise<Router> | undefined;
  return Router().use((req, res, next) => {
    ui ??= import('./queue-ui.js').then((m) => m.createQueueUi(queue, QUEUE_UI_PATH));
    ui.then((router) => router(req, res, next), next);
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Job data is shown masked and jobs come from the requests service: the UI neither adds jobs nor rewrites their data. */
const DATA_WRITES = /^\/api\/queues\/[^/]+\/(?:add|[^/]+\/update-data)\/?$/;

function sameHost(origin: string, host: string | undefined): boolean {
  try {
    return host !== undefined && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** Writes only from the UI's own pages, and only JSON or no body; see the file's comment. */
function sameOriginWrites(publicBaseUrl: string): RequestHandler {
  const env = { publicBaseUrl };
  return (req, res, next) => {
    if (SAFE_METHODS.has(req.method)) return next();
    const site = req.get('sec-fetch-site');
    const origin = req.get('origin');
    if ((site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && !sameHost(origin, req.get('host')))) {
      return sendError(res, env, 'forbidden', 'The queue UI takes writes only from its own pages.', {
        hint: 'Open the queue UI itself (kubectl port-forward) and act there.',
      });
    }
    const type = req.get('content-type');
    if (type !== undefined && !/^application\/json\s*(?:;|$)/i.test(type)) {
      return sendError(res, env, 'unsupported_media_type', 'The queue UI takes writes with a JSON body or none.');
    }
    if (DATA_WRITES.test(req.path)) {
      return sendError(res, env, 'forbidden', 'The queue UI does not add jobs or change their data.', {
        hint: 'Jobs come from the requests service; retry, promote or clean them here.',
      });
    }
    next();
  };
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Compares hashes of equal length in constant time, user and password both
 * always, so neither the length nor the first wrong character shows in the
 * response time. Past either failure budget the answer is 429 before any
 * comparison, right credentials included, until the window ends.
 */
function basicAuth(
  expected: { user: string; password: string },
  publicBaseUrl: string,
  failures: { perAddress: FailureLimiter; total: FailureLimiter },
): RequestHandler {
  const user = digest(expected.user);
  const password = digest(expected.password);
  const TOTAL = 'all';
  // Express 5 hands a rejection (a Redis error, the 429) to the error middleware.
  return async (req, res, next) => {
    const address = `ip:${limitKeyOfAddress(req.ip ?? req.socket.remoteAddress ?? 'unknown')}`;
    const budgets = await Promise.all([failures.perAddress.check(address), failures.total.check(TOTAL)]);
    const spent = budgets.find((b) => !b.allowed);
    if (spent) {
      setRateLimitHeaders(res, spent.state);
      throw rateLimitedError(spent.state, 'Too many wrong logins to the queue UI.', 'Wait for Retry-After seconds, then log in with ADMIN_USER / ADMIN_PASSWORD of the worker.');
    }
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '');
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const givenUser = colon >= 0 ? decoded.slice(0, colon) : '';
    const givenPassword = colon >= 0 ? decoded.slice(colon + 1) : '';
    const userOk = timingSafeEqual(digest(givenUser), user);
    const passwordOk = timingSafeEqual(digest(givenPassword), password);
    if (match && colon >= 0 && userOk && passwordOk) return next();
    // A browser's first request carries no credentials: only a wrong guess counts.
    if (req.headers.authorization !== undefined) await Promise.all([failures.perAddress.fail(address), failures.total.fail(TOTAL)]);
    sendError(res, { publicBaseUrl }, 'unauthorized', 'The queue UI needs the admin credentials.', {
      hint: 'Send HTTP Basic credentials (ADMIN_USER / ADMIN_PASSWORD of the worker).',
      headers: { 'WWW-Authenticate': 'Basic realm="intake-worker", charset="UTF-8"' },
    });
  };
}
