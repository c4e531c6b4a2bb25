import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real 1×1 PNG. */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
export const SVG_LOGO = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle r="4" cx="5" cy="5"/></svg>');

export type Route = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

export interface LogoServer {
  url(path: string): string;
  port: number;
  /** Paths requested, in order. */
  requests: string[];
  /** Host headers received, in order. */
  hosts: string[];
  close(): Promise<void>;
}

/** A logo host on loopback; unknown paths answer 404. */
export async function startLogoServer(routes: Record<string, Route>): Promise<LogoServer> {
  const requests: string[] = [];
  const hosts: string[] = [];
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push(path);
    hosts.push(req.headers.host ?? '');
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end('not found');
      return;
    }
    void Promise.resolve(route(req, res)).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    requests,
    hosts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const sendBytes =
  (data: Buffer, contentType = 'image/png'): Route =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': data.length }).end(data);
  };

/** `size` bytes that start like a PNG, streamed in chunks without a Content-Length. */
export const streamLargePng =
  (size: number): Route =>
  async (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png' });
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    PNG_1X1.copy(chunk);
    for (let sent = 0; sent < size && !res.destroyed; sent += chunk.length) {
      if (!res.write(chunk)) await once(res, 'drain').catch(() => undefined);
    }
    res.end();
  };

export const redirectTo =
  (location: string, status = 302): Route =>
  (_req, res) => {
    res.writeHead(status, { location }).end();
  };
