/*
 * The worker's admin server: health for the orchestrator, metrics for
 * Prometheus and, when credentials are configured, the bull-board UI of the
 * `intake` queue. It is an operator port, never routed by the gateway.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { errorHandler, healthRoutes, notFoundHandler, requestContext, sendError, type Logger, type Metrics } from '@msa/service-kit';
import express, { type Express, type RequestHandler, type Router } from 'express';

export const ADMIN_UI_PATH = '/admin/queues';

export interface AppDeps {
  logger: Logger;
  publicBaseUrl: string;
  metrics: Metrics;
  /** Resolves when the worker can work: not paused, and Redis serves its queue. */
  ready: () => Promise<unknown>;
  /** The queue UI and the basic-auth credentials in front of it; null turns the UI off. */
  admin: { ui: Router; user: string; password: string } | null;
}

export function createApp({ logger, publicBaseUrl, metrics, ready, admin }: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger));
  app.use(metrics.http);
  app.use(metrics.routes);
  app.use(healthRoutes({ ready }));
  if (admin) app.use(ADMIN_UI_PATH, basicAuth(admin, publicBaseUrl), admin.ui);
  app.use(notFoundHandler({ publicBaseUrl }));
  app.use(errorHandler(logger, { publicBaseUrl }));
  return app;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * Compares hashes of equal length in constant time, user and password both
 * always, so neither the length nor the first wrong character shows in the
 * response time.
 */
export function basicAuth(expected: { user: string; password: string }, publicBaseUrl: string): RequestHandler {
  const user = digest(expected.user);
  const password = digest(expected.password);
  return (req, res, next) => {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(req.headers.authorization ?? '');
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const givenUser = colon >= 0 ? decoded.slice(0, colon) : '';
    const givenPassword = colon >= 0 ? decoded.slice(colon + 1) : '';
    const userOk = timingSafeEqual(digest(givenUser), user);
    const passwordOk = timingSafeEqual(digest(givenPassword), password);
    if (match && colon >= 0 && userOk && passwordOk) return next();
    sendError(res, { publicBaseUrl }, 'unauthorized', 'The queue UI needs the admin credentials.', {
      hint: 'Send HTTP Basic credentials (ADMIN_USER / ADMIN_PASSWORD of the worker).',
      headers: { 'WWW-Authenticate': 'Basic realm="intake-worker", charset="UTF-8"' },
    });
  };
}
