// Streams a request to one service through http-proxy-middleware, and turns
// what can go wrong on the way into the error envelope through the app's one
// error handler. Everything goes through the middleware's documented options
// and `on` handlers:
// - `agent`: keep-alive sockets; a new connection per request costs more
//   than the whole proxy hop. Each proxy has a pool of its own, so a route
//   that may wait on the outside world gets its own and cannot fill the
//   pool every other route to that service shares.
// - `timeout`: the client's socket may sit idle this long while its body is
//   still arriving; past that, 408 and the connection closed.
// - `proxyTimeout`: the connection to the service may sit idle this long;
//   past that, 504 once the body was sent. While a body is still arriving
//   the service has nothing to answer yet and every byte the client sends is
//   forwarded at once, so silence there is the client's pause: 408 too.
// - a plugin hands a body the gateway already read (peek-body.ts) to
//   http-proxy as its `buffer`, the stream it sends instead of the request,
//   whenever a socket to the service becomes free. Writing it when the
//   socket came (`proxyReq`) was too late once the pool was full: the
//   request, read to its end, had ended the proxy's request already.
// - `proxyReq` stops the client's clock once the body is sent; `proxyRes`
//   adds Vary, closes the client's connection when the service answered
//   before a large body arrived (refused-body.ts), and closes the service's
//   answer when the client leaves before it was relayed; `error` answers
//   502, 504 or 408, or nothing when the service had already answered.
import http from 'node:http';
import type { ServiceName } from '@msa/contracts';
import { appError, declareRequestFields, type Logger, type Metrics } from '@msa/service-kit';
import type { NextFunction, Request, RequestHandler } from 'express';
import { createProxyMiddleware, proxyEventsPlugin, type Plugin } from 'http-proxy-middleware';
import { bodyStream } from './peek-body.js';
import { closesConnection } from './refused-body.js';

export interface ServiceProxyOptions {
  service: ServiceName;
  target: string;
  /** How long the service may stay silent once the body is sent, before 504. */
  timeoutMs: number;
  /** How long a client may pause while sending a body, before 408. */
  clientBodyTimeoutMs: number;
  logger: Logger;
  upstreamErrors: ReturnType<Metrics['counter']>;
  /** Connections to the service at once; more requests wait in the pool (default {@link DEFAULT_UPSTREAM_SOCKETS}). */
  maxSockets?: number;
}

/** The connections one proxy holds to its service at most. */
export const DEFAULT_UPSTREAM_SOCKETS = 256;

const FORWARDING = Symbol('forwarding');
declareRequestFields(FORWARDING);

/** What one proxied request's handlers share; one small object per request. */
interface Forwarding {
  req: http.IncomingMessage;
  /** The express `next`, for answering a failure through the error handler. */
  next: NextFunction;
  proxyReq?: http.ClientRequest;
  upstreamRes?: http.IncomingMessage;
  /** The connection to the service stayed idle for `proxyTimeout`. */
  upstreamTimedOut: boolean;
  /** The client sent no body data for `timeout` while sending it. */
  clientStalled: boolean;
  /** The service answered; a later socket error must not replace its answer. */
  responded: boolean;
}

type Tagged<T> = T & { [FORWARDING]?: Forwarding };

/** The request's forwarding state; the client request and the proxy's request to the service both carry it. */
function forwardingOf(emitter: unknown): Forwarding | undefined {
  return (emitter as Tagged<object>)[FORWARDING];
}

// Listeners shared by every request (`this` is the emitter) rather than
// closures made per request.
function onUpstreamTimeout(this: http.ClientRequest) {
  const forwarding = forwardingOf(this);
  if (forwarding) forwarding.upstreamTimedOut = true;
}

function onClientTimeout(this: http.IncomingMessage) {
  const forwarding = forwardingOf(this);
  if (!forwarding || forwarding.responded) return;
  forwarding.clientStalled = true;
  forwarding.proxyReq?.destroy(new Error('the client stopped sending its body'));
}

/** The client's body is all sent: its pauses no longer count. */
function onBodySent(this: http.IncomingMessage) {
  this.socket?.setTimeout(0);
  this.off('timeout', onClientTimeout);
}

// A client gone before the whole answer was relayed (an event stream it
// stopped reading) must not leave the service's answer open.
function onClientClose(this: http.ServerResponse) {
  if (!this.writableEnded) forwardingOf(this.req)?.upstreamRes?.destroy();
}

function onUpstreamResponse(this: http.ClientRequest) {
  const forwarding = forwardingOf(this)!;
  const { req } = forwarding;
  forwarding.responded = true;
  // A service may answer before reading the whole body (415, 401): stop
  // forwarding the rest, which it may no longer read, and drain it so the
  // connection stays usable. Closing instead would reset a client still
  // sending, and a reset can discard the answer unread.
  if (!req.complete) {
    onBodySent.call(req);
    req.unpipe();
    req.resume();
  }
}

function onProxyReq(proxyReq: http.ClientRequest, req: http.IncomingMessage) {
  const forwarding = forwardingOf(req)!;
  forwarding.proxyReq = proxyReq;
  (proxyReq as Tagged<http.ClientRequest>)[FORWARDING] = forwarding;
  // `on`, not `once`: each handler may run again harmlessly (the response
  // comes once, a timeout only sets a flag), and `once` wraps it anew per request.
  proxyReq.on('timeout', onUpstreamTimeout);
  proxyReq.on('response', onUpstreamResponse);
  if (req.complete) onBodySent.call(req);
  else req.on('timeout', onClientTimeout).once('end', onBodySent);
}

function onProxyRes(proxyRes: http.IncomingMessage, req: http.IncomingMessage, res: http.ServerResponse) {
  // The same URL answers differently per credentials (a sandbox key turns
  // links into /sandbox links), so shared caches must key on them.
  const vary = proxyRes.headers.vary;
  proxyRes.headers.vary = vary ? `${vary}, Authorization, X-API-Key` : 'Authorization, X-API-Key';
  forwardingOf(req)!.upstreamRes = proxyRes;
  if (closesConnection(req)) proxyRes.headers.connection = 'close';
  // `close` comes once per response; `once` would wrap the listener for every request.
  res.on('close', onClientClose);
}

interface PassHook {
  before(type: 'web', pass: 'stream', run: (req: http.IncomingMessage, res: http.ServerResponse, options: { buffer?: NodeJS.ReadableStream }) => void): void;
}

/**
 * Sends a body the gateway read as http-proxy's `buffer`, set per request
 * through http-proxy's `before` hook on its passes (public, though its type
 * declarations leave it out): the options it gets are this request's copy.
 */
const readBodyPlugin: Plugin = (proxyServer) => {
  (proxyServer as unknown as PassHook).before('web', 'stream', (req, _res, options) => {
    const body = bodyStream(req);
    if (body) options.buffer = body;
  });
};

/**
 * An express handler that proxies to `target`. The route table decides what
 * reaches it, so it forwards every request it is given.
 */
export function createServiceProxy(options: ServiceProxyOptions): RequestHandler {
  const { service, target, timeoutMs, clientBodyTimeoutMs, logger, upstreamErrors, maxSockets = DEFAULT_UPSTREAM_SOCKETS } = options;

  function onError(err: Error, req: http.IncomingMessage) {
    const forwarding = forwardingOf(req);
    if (!forwarding) return;
    const log = (req as Request).log ?? logger;
    if (forwarding.responded) {
      // Writing the rest of the body failed after the service had answered
      // (it closed the connection); its answer is being relayed.
      log.debug({ err, service }, 'upstream closed after answering early');
      return;
    }
    // Silence while the body was still arriving is the client's pause, whichever clock noticed it.
    if (forwarding.clientStalled || (forwarding.upstreamTimedOut && !req.complete)) {
      log.info({ service }, 'client stopped sending its body');
      return forwarding.next(
        appError('request_timeout', `No part of the request body arrived for ${clientBodyTimeoutMs / 1000} s.`, { headers: { Connection: 'close' } }),
      );
    }
    const kind = forwarding.upstreamTimedOut ? 'timeout' : 'unavailable';
    upstreamErrors.inc({ service, kind });
    log.warn({ err, service, kind }, 'upstream failed');
    forwarding.next(
      kind === 'timeout'
        ? appError('upstream_timeout', `The ${service} service did not answer in time.`)
        : appError('upstream_unavailable', `The ${service} service is unavailable.`),
    );
  }

  const proxy = createProxyMiddleware({
    target,
    agent: new http.Agent({ keepAlive: true, maxSockets, keepAliveMsecs: 10_000 }),
    changeOrigin: true,
    // The forward stage writes X-Forwarded-*, from the addresses express trusts.
    xfwd: false,
    pathFilter: () => true,
    timeout: clientBodyTimeoutMs,
    proxyTimeout: timeoutMs,
    // Only the plugin that implements `on`: the default logger plugin builds
    // a URL per answer for a log line we do not write, and the error and
    // close handling of the others is ours.
    ejectPlugins: true,
    plugins: [proxyEventsPlugin, readBodyPlugin],
    on: { proxyReq: onProxyReq, proxyRes: onProxyRes, error: onError },
  });

  return (req, res, next) => {
    // Connection is hop-by-hop: a client's `close` would make the service
    // drop the pooled connection, and cut it mid-body after an early answer.
    if (!/upgrade/i.test(req.headers.connection ?? '')) delete req.headers.connection;
    const forwarding: Forwarding = { req, next, upstreamTimedOut: false, clientStalled: false, responded: false };
    (req as Tagged<Request>)[FORWARDING] = forwarding;
    void proxy(req, res, next);
  };
}
