/*
 * The worker's admin server: health for the orchestrator and metrics for
 * Prometheus. It is an operator port, never routed by the gateway. The queue
 * UI has a server of its own, on loopback (queue-ui-server.ts).
 */
import { errorHandler, healthRoutes, notFoundHandler, requestContext, type Logger, type Metrics } from '@msa/service-kit';
import express, { type Express } from 'express';

export interface AppDeps {
  logger: Logger;
  publicBaseUrl: string;
  metrics: Metrics;
  /** Resolves when the worker can work: not paused, and Redis serves its queue. */
  ready: () => Promise<unknown>;
}

export function createApp({ logger, publicBaseUrl, metrics, ready }: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger));
  app.use(metrics.http);
  app.use(metrics.routes);
  app.use(healthRoutes({ ready }));
  app.use(notFoundHandler({ publicBaseUrl }));
  app.use(errorHandler(logger, { publicBaseUrl }));
  return app;
}
