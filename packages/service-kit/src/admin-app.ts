// @module `createAdminApp(metrics, { publicBaseUrl, logger })`: the admin port (`/metrics`, `/healthz`, JSON 404); `listenWithAdmin(app, metrics, { port, adminPort, host, publicBaseUrl })` listens on both and closes both
import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from './error-handler.js';
import { closeServer, listen, type Listening } from './http.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

export interface AdminAppOptions {
  publicBaseUrl?: string;
  logger?: Logger;
}

/**
 * The operator port of a service: `/metrics` for Prometheus and `/healthz`.
 * It is never routed by the gateway nor published, so the service port
 * serves nothing but health without internal auth, while Prometheus scrapes
 * without a token it could not mint.
 */
export function createAdminApp(metrics: Metrics, { publicBaseUrl = 'http://localhost:8080', logger }: AdminAppOptions = {}): Express {
  const env = { publicBaseUrl };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(metrics.routes);
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(notFoundHandler(env));
  if (logger) app.use(errorHandler(logger, env));
  return app;
}

export interface ServicePortsOptions {
  port: number;
  adminPort: number;
  host: string;
  publicBaseUrl: string;
  logger?: Logger;
}

export interface ServicePorts {
  main: Listening;
  admin: Listening;
  /** Closes both servers (closeServer: in-flight requests finish first). */
  close(): Promise<void>;
}

/** Listens with `app` on the service port and with the admin app on the admin port. */
export async function listenWithAdmin(app: Express, metrics: Metrics, opts: ServicePortsOptions): Promise<ServicePorts> {
  const options = { host: opts.host, publicBaseUrl: opts.publicBaseUrl };
  const main = await listen(app, opts.port, options);
  let admin: Listening;
  try {
    admin = await listen(createAdminApp(metrics, { publicBaseUrl: opts.publicBaseUrl, logger: opts.logger }), opts.adminPort, options);
  } catch (err) {
    await closeServer(main.server);
    throw err;
  }
  return {
    main,
    admin,
    close: async () => {
      await Promise.all([closeServer(main.server), closeServer(admin.server)]);
    },
  };
}
