import http from 'node:http';
import type { ServiceName } from '@msa/contracts';
import { sendError, type Logger, type Metrics } from '@msa/service-kit';
import type { Request, RequestHandler, Response } from 'express';
import httpProxy from 'http-proxy';
import { peekedBody } from './peek-body.js';

export interface ProxyOptions {
  service: ServiceName;
  target: string;
  timeoutMs: number;
  /** How long a client may pause while sending a body before it gets 408. */
  clientBodyTimeoutMs: number;
  publicBaseUrl: string;
  logger: Logger;
  upstreamErrors: ReturnType<Metrics['counter']>;
}

const STATE = Symbol('proxyState');
const CLIENT_REQ = Symbol('clientRequest');
const UPSTREAM_RES = Symbol('upstreamResponse');

interface ProxyState {
  /** The service did not answer within timeoutMs after the body was sent. */
  upstreamTimedOut?: boolean;
  /** The client stopped sending its body for clientBodyTimeoutMs. */
  clientStalled?: boolean;
  /** The service answered; a later socket error must not replace its answer. */
  responded?: boolean;
  idle?: NodeJS.Timeout;
}

type Tagged<T> = T & { [STATE]?: ProxyState; [CLIENT_REQ]?: Request; [UPSTREAM_RES]?: http.IncomingMessage };

function stateOf(req: unknown): ProxyState {
  const holder = req as Tagged<object>;
  return (holder[STATE] ??= {});
}

function bodyPending(req: Request): boolean {
  if (req.complete) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

// Listeners shared by every request (`this` is the emitter) rather than
// closures made per request.
function onUpstreamResponse(this: Tagged<http.ClientRequest>) {
  const req = this[CLIENT_REQ]!;
  const state = stateOf(req);
  state.responded = true;
  clearTimeout(state.idle);
  // A service may answer before reading the whole body (415, 401): stop
  // forwarding the rest, which it may no longer read, and drain it so the
  // connection stays usable. Closing instead would reset a client still
  // sending, and a reset can discard the answer unread.
  if (!req.complete) {
    req.unpipe(this);
    req.resume();
  }
}

// A client gone before the whole answer was relayed (an event stream it
// stopped reading) must not leave the service's answer open.
function onClientClose(this: Tagged<Response>) {
  if (!this.writableEnded) this[UPSTREAM_RES]?.destroy();
}

/**
 * Streams the request to one service. Keep-alive sockets (a new connection
 * per request costs more than the whole proxy hop), no body parsing, and every
 * upstream failure answered in the error envelope: refused → 502, slow → 504.
 * Waiting for the client's body and waiting for the service are timed apart:
 * a client that stops sending gets 408, a service that stops answering 504.
 * http-proxy itself, without http-proxy-middleware's per-request URL parsing,
 * option copies and logging plugins.
 */
export function createServiceProxy({ service, target, timeoutMs, clientBodyTimeoutMs, publicBaseUrl, logger, upstreamErrors }: ProxyOptions): RequestHandler {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256, keepAliveMsecs: 10_000 });
  const proxy = httpProxy.createProxyServer({ target, agent, changeOrigin: true, xfwd: false });

  function onUpstreamTimeout(this: Tagged<http.ClientRequest>) {
    stateOf(this[CLIENT_REQ]).upstreamTimedOut = true;
    this.destroy(new Error(`${service} did not answer within ${timeoutMs} ms`));
  }

  proxy.on('proxyReq', (proxyReq: Tagged<http.ClientRequest>, req) => {
    const clientReq = req as Request;
    proxyReq[CLIENT_REQ] = clientReq;
    // A body the gateway read to classify it (peek-body.ts): the stream has
    // ended, so the proxy's pipe only ends proxyReq; the bytes go here,
    // unchanged, under the client's own Content-Length.
    const peeked = peekedBody(clientReq);
    if (peeked) proxyReq.write(peeked);
    if (bodyPending(clientReq)) {
      const state = stateOf(clientReq);
      const idle = (state.idle = setTimeout(() => {
        state.clientStalled = true;
        proxyReq.destroy(new Error(`the client sent no body data for ${clientBodyTimeoutMs} ms`));
      }, clientBodyTimeoutMs));
      clientReq.on('data', () => idle.refresh());
      clientReq.once('end', () => {
        clearTimeout(idle);
        proxyReq.setTimeout(timeoutMs, onUpstreamTimeout);
      });
      clientReq.once('close', () => clearTimeout(idle));
    } else {
      proxyReq.setTimeout(timeoutMs, onUpstreamTimeout);
    }
    proxyReq.once('response', onUpstreamResponse);
  });

  proxy.on('proxyRes', (proxyRes, _req, res) => {
    // The same URL answers differently per credentials (a sandbox key turns
    // links into /sandbox links), so shared caches must key on them.
    const vary = proxyRes.headers.vary;
    proxyRes.headers.vary = vary ? `${vary}, Authorization, X-API-Key` : 'Authorization, X-API-Key';
    (res as Tagged<Response>)[UPSTREAM_RES] = proxyRes;
    res.once('close', onClientClose);
  });

  proxy.on('error', (err, req, res) => {
    const state = stateOf(req);
    const log = (req as Request).log ?? logger;
    if (state.responded) {
      // Writing the rest of the body failed after the service had answered
      // (it closed the connection); its answer is being relayed.
      log.debug({ err, service }, 'upstream closed after answering early');
      return;
    }
    if (state.clientStalled) {
      log.info({ service }, 'client stopped sending its body');
      if (!('setHeader' in res) || res.headersSent) return;
      return sendError(res as Response, { publicBaseUrl }, 'request_timeout', `No part of the request body arrived for ${clientBodyTimeoutMs / 1000} s.`, {
        headers: { Connection: 'close' },
      });
    }
    const timedOut = state.upstreamTimedOut === true;
    const kind = timedOut ? 'timeout' : 'unavailable';
    upstreamErrors.inc({ service, kind });
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
  });

  return (req, res) => {
    // Connection is hop-by-hop: a client's `close` would make the service
    // drop the pooled connection, and cut it mid-body after an early answer.
    if (!/upgrade/i.test(req.headers.connection ?? '')) delete req.headers.connection;
    proxy.web(req, res);
  };
}
