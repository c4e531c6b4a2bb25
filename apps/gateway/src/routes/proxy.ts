import http from 'node:http';
import type { ServiceName } from '@msa/contracts';
import { sendError, type Logger, type Metrics } from '@msa/service-kit';
import type { Request, RequestHandler, Response } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';

export interface ProxyOptions {
  service: ServiceName;
  target: string;
  timeoutMs: number;
  publicBaseUrl: string;
  logger: Logger;
  upstreamErrors: ReturnType<Metrics['counter']>;
}

const TIMED_OUT = Symbol('upstreamTimedOut');

/**
 * Streams the request to one service. Keep-alive sockets (a new connection
 * per request costs more than the whole proxy hop), no body parsing, and every
 * upstream failure answered in the error envelope: refused → 502, slow → 504.
 */
export function createServiceProxy({ service, target, timeoutMs, publicBaseUrl, logger, upstreamErrors }: ProxyOptions): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 });
  return createProxyMiddleware<Request, Response>({
    target,
    agent,
    changeOrigin: true,
    xfwd: false,
    on: {
      proxyReq: (proxyReq, req) => {
        proxyReq.setTimeout(timeoutMs, () => {
          (req as unknown as Record<symbol, boolean>)[TIMED_OUT] = true;
          proxyReq.destroy(new Error(`${service} did not answer within ${timeoutMs} ms`));
        });
      },
      proxyRes: (proxyRes) => {
        // The same URL answers differently per credentials (a sandbox key
        // turns links into /sandbox links), so shared caches must key on them.
        const vary = proxyRes.headers.vary;
        proxyRes.headers.vary = vary ? `${vary}, Authorization, X-API-Key` : 'Authorization, X-API-Key';
      },
      error: (err, req, res) => {
        const timedOut = (req as unknown as Record<symbol, boolean>)[TIMED_OUT] === true;
        const kind = timedOut ? 'timeout' : 'unavailable';
        upstreamErrors.inc({ service, kind });
        const log = (req as Request).log ?? logger;
        log.warn({ err, service, kind }, 'upstream failed');
        // `res` is a Socket for upgrade requests; there is nothing to answer there.
        if (!('setHeader' in res) || res.headersSent) {
          if ('destroy' in res) res.destroy();
          return;
        }
        sendError(
          res as Response,
          { publicBaseUrl },
          timedOut ? 'upstream_timeout' : 'upstream_unavailable',
          timedOut ? `The ${service} service did not answer in time.` : `The ${service} service is unavailable.`,
        );
      },
    },
  });
}
