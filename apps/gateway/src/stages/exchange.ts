// What the stages of the gateway share about one request, and how they run.
// A stage does one part of the gateway's job, reading and writing the
// exchange, and hands on with `next(x)`; one that refuses throws an AppError,
// which the error handler answers. A stage that must see how the later ones
// went (the failed-auth budget) awaits `next(x)` inside a try.
import { isIP } from 'node:net';
import type { Principal } from '@msa/contracts';
import { limitKeyOfAddress } from '@msa/service-kit';
import type { WindowLimiter } from '@msa/service-kit/limits';
import type { NextFunction, Request, Response } from 'express';
import type { ProtectedResource } from '../domain/protected-resource.js';
import type { Resolution, RouteDef } from '../domain/route-table.js';

/** A per-minute count a request is charged to, and the words of its 429. */
export interface Bucket {
  limiter: WindowLimiter;
  refusal(principal: Principal | null): { message: string; hint?: string };
}

export interface Exchange {
  readonly req: Request;
  readonly res: Response;
  /** Hands the request to the next express handler (the documents router, or the error handler with an error). */
  readonly next: NextFunction;
  /** The client's address, as services are told it. */
  readonly ip: string;
  /** What the per-address limits count the client under: IPv4 by address, IPv6 by prefix (limitKeyOfAddress). */
  readonly addressKey: string;
  /** The path without `/sandbox` (resolve). */
  path: string;
  /** The client addressed the sandbox: `/sandbox/…` or a path-insertion form (resolve). */
  sandboxPath: boolean;
  /** The route, or one that reads credentials when given for a request no route matches (resolve). */
  route: RouteDef;
  /** Why no route matched; answered once the request is counted (resolve, unrouted). */
  miss: Exclude<Resolution, { kind: 'route' }> | null;
  /** The protected resource addressed: its metadata document and the token audiences that fit (resolve). */
  resource: ProtectedResource;
  /** Counts the request instead of the caller's minute (the MCP handshake rule). */
  bucket: Bucket | null;
  /** Units of the per-minute limit the request uses: one, or one per message of an MCP batch (mcp-handshake). */
  cost: number;
  /** Who calls; null without credentials (authenticate). */
  principal: Principal | null;
  /** A refusal decided before the request was counted; admit answers it once counted (authenticate). */
  refusal: unknown;
  /** Whether identity may be asked about these credentials (the failed-auth budget says no past its limit). */
  mayAskIdentity(): boolean | Promise<boolean>;
}

export type Next = (x: Exchange) => void | Promise<void>;
export type Stage = (x: Exchange, next: Next) => void | Promise<void>;

/** How a request that matches no route is authenticated: credentials used when given. */
export const UNROUTED: RouteDef = { operation: 'unrouted', method: '*', path: '*', target: 'docs', auth: 'open' };

const askAlways = () => true;

/** The client's address, IPv4-mapped IPv6 written as IPv4. */
export function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip;
}

/**
 * A fresh exchange; `resource` stands until resolve names the one addressed.
 * `ipv6Prefix`: the IPv6 prefix length a per-address limit counts as one client.
 */
export function createExchange(req: Request, res: Response, next: NextFunction, resource: ProtectedResource, ipv6Prefix?: number): Exchange {
  const ip = clientIp(req);
  return {
    req,
    res,
    next,
    ip,
    addressKey: limitKeyOfAddress(ip, { ipv6Prefix }),
    path: '',
    sandboxPath: false,
    route: UNROUTED,
    miss: null,
    resource,
    bucket: null,
    cost: 1,
    principal: null,
    refusal: undefined,
    mayAskIdentity: askAlways,
  };
}

/** Runs `stages` in order, each handing on to the next; the chain is built once. */
export function pipeline(stages: readonly Stage[]): (x: Exchange) => Promise<void> {
  let run: Next = () => undefined;
  for (const stage of [...stages].reverse()) {
    const after = run;
    run = (x) => stage(x, after);
  }
  // async, so a stage that throws before its first await rejects instead.
  return async (x) => run(x);
}
