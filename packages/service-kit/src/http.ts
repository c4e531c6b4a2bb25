// @module `listen(app, port, { host, publicBaseUrl })` → `{ server, port, url }` (port 0 = a free port); `closeServer(server)` stops accepting, lets in-flight requests finish and closes keep-alive sockets as they go idle
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { DEFAULT_BODY_DEADLINE_MS } from './body-deadline.js';
import { createClientErrorHandler } from './client-error.js';
import { ShapedRequest, ShapedResponse } from './request-shape.js';

/**
 * Node's server clocks, set on every server rather than left at Node's
 * defaults (requestTimeout 300 s: a request trickling in could hold its
 * socket for five minutes). Each is answered 408 in the envelope
 * (client-error.ts) and the connection closed.
 */
export interface HttpTimeouts {
  /** The request line and headers must arrive within this (Node's default is 60 s). */
  headersTimeoutMs: number;
  /**
   * The whole request, headers and body, must arrive within this. A backstop
   * behind the body deadline (body-deadline.ts), which answers first.
   */
  requestTimeoutMs: number;
  /** An idle keep-alive socket is closed after this; longer than the 60 s idle timeout of common load balancers. */
  keepAliveTimeoutMs: number;
  /** How often Node checks the two clocks above; a request is cut at most this late. */
  checkIntervalMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: DEFAULT_BODY_DEADLINE_MS + 10_000,
  keepAliveTimeoutMs: 65_000,
  checkIntervalMs: 1_000,
};

export interface Listening {
  server: Server;
  port: number;
  url: string;
}

export interface ListenOptions {
  /** The interface to bind (BIND_ADDRESS); all of them by default, as containers need. */
  host?: string;
  /** For the `docs` links of the envelopes written at the socket. */
  publicBaseUrl?: string;
  /** Node's server clocks; {@link DEFAULT_HTTP_TIMEOUTS} for what is not given. */
  timeouts?: Partial<HttpTimeouts>;
}

/**
 * Listens on `port` (0 = any free one) and resolves once bound, or rejects on
 * a bind error. Requests Node's parser refuses are answered in the error
 * envelope too. A string third argument is the host.
 */
export function listen(app: Express, port: number, options: ListenOptions | string = {}): Promise<Listening> {
  const { host = '0.0.0.0', publicBaseUrl = 'http://localhost:8080', timeouts = {} } = typeof options === 'string' ? { host: options } : options;
  const t = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  // Node refuses a headers timeout longer than the request timeout.
  const requestTimeout = Math.max(t.requestTimeoutMs, t.headersTimeoutMs);
  const server = createServer(
    {
      headersTimeout: t.headersTimeoutMs,
      requestTimeout,
      connectionsCheckingInterval: t.checkIntervalMs,
      // Requests and responses keep one hidden class under express (request-shape.ts).
      IncomingMessage: ShapedRequest,
      ServerResponse: ShapedResponse,
    },
    app,
  );
  server.keepAliveTimeout = t.keepAliveTimeoutMs;
  server.on('clientError', createClientErrorHandler({ publicBaseUrl }));
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const addr = server.address() as AddressInfo;
      resolve({ server, port: addr.port, url: `http://${reachableHost(host)}:${addr.port}` });
    });
  });
}

/** Where a caller on this machine reaches a server bound to `host`. */
function reachableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

export interface CloseOptions {
  /**
   * After this long, connections still open are cut: a socket that never sent
   * a request (a browser's preconnect) would otherwise hold the close until
   * the headers timeout, past any shutdown deadline.
   */
  forceAfterMs?: number;
}

/** Stops accepting, lets in-flight requests finish, then drops idle keep-alive sockets. */
export function closeServer(server: Server, { forceAfterMs = 5_000 }: CloseOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    // A keep-alive socket whose request was in flight turns idle only after
    // close(), and would then hold the close for the whole keep-alive timeout
    // (65 s, past any shutdown deadline). Answers from now on say
    // `Connection: close`, and idle sockets keep being dropped until done.
    const closeAfterResponse = (_req: IncomingMessage, res: ServerResponse) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    };
    server.prependListener('request', closeAfterResponse);
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    sweep.unref();
    const force = setTimeout(() => server.closeAllConnections(), forceAfterMs);
    force.unref();
    server.close((err) => {
      clearInterval(sweep);
      clearTimeout(force);
      server.removeListener('request', closeAfterResponse);
      if (err && (err as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(err);
      else resolve();
    });
    server.closeIdleConnections();
  });
}
