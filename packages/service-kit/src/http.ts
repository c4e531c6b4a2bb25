import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createClientErrorHandler } from './client-error.js';

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
}

/**
 * Listens on `port` (0 = any free one) and resolves once bound, or rejects on
 * a bind error. Requests Node's parser refuses are answered in the error
 * envelope too. A string third argument is the host.
 */
export function listen(app: Express, port: number, options: ListenOptions | string = {}): Promise<Listening> {
  const { host = '0.0.0.0', publicBaseUrl = 'http://localhost:8080' } = typeof options === 'string' ? { host: options } : options;
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => {
      if (err) return reject(err);
      const addr = server.address() as AddressInfo;
      // Behind load balancers with 60 s idle timeouts, keep sockets open longer than they do.
      server.keepAliveTimeout = 65_000;
      server.headersTimeout = 66_000;
      resolve({ server, port: addr.port, url: `http://${reachableHost(host)}:${addr.port}` });
    });
    server.on('clientError', createClientErrorHandler({ publicBaseUrl }));
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
