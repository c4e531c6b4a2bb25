// What the stages of the gateway share about one request, and how they run.
// A stage does one part of the gateway's job, reading and writing the
// exchange, and hands on with `next(x)`; one that refuses throws an AppError,
// which the error handler answers. A stage that must see how the later ones
// went (the failed-auth budget) awaits `next(x)` inside a try.
import { isIP } from 'node:net';
import type { Principal } from '@msa/contracts';
import { limitKeyOfAddress, type AppError } from '@msa/service-kit';
import type { ConsumeResult, WindowLimiter } from '@msa/service-kit/limits';
import type { NextFunction, Request, Response } from 'express';
import type { ProtectedResource } from '../domain/protected-resource.js';
import type { Resolution, RouteDef } from '../domain/route-table.js';

/** A per-minute limiter; one that can count from this process alone (a lease) answers `consumeNow` without a promise. */
export interface GatewayLimiter extends WindowLimiter {
  consumeNow?(key: string, cost: number): ConsumeResult | undefined;
}

/** A per-minute count a request is charged to, and the words of its 429. */
export interface Bucket {
  limiter: GatewayLimiter;
  refusal(principal: Principal | null): { message: string; hint?: string };
}

/** What the exchange holds from the start: the request, its answer and who sent it (createExchange). */
export interface Received {
  readonly req: Request;
  readonly res: Response;
  /** Hands the request to the next express handler (the documents router, or the error handler with an error). */
  readonly next: NextFunction;
  /** The client's address, as services are told it. */
  readonly ip: string;
  /** What the per-address limits count the client under: IPv4 by address, IPv6 by prefix (limitKeyOfAddress). */
  readonly addressKey: string;
}

/** Written by resolve. */
export interface Resolved {
  /** The path without `/sandbox`. */
  path: string;
  /** The client addressed the sandbox: `/sandbox/…` or a path-insertion form. */
  sandboxPath: boolean;
  /** The route, or one that reads credentials when given for a request no route matches. */
  route: RouteDef;
  /** Why no route matched; answered once the request is counted (unrouted). */
  miss: Exclude<Resolution, { kind: 'route' }> | null;
  /** The protected resource addressed: its metadata document and the token audiences that fit. */
  resource: ProtectedResource;
}

/** Written by the failed-auth budget. */
export interface AuthBudget {
  /** Whether identity may be asked about these credentials (the failed-auth budget says no past its limit). */
  mayAskIdentity(): boolean | Promise<boolean>;
}

/** Written by authenticate. */
export interface Authenticated {
  /** Who calls; null without credentials. */
  principal: Principal | null;
  /** A refusal decided before the request was counted (identity could not answer); admit throws it once counted. */
  refusal: AppError | null;
}

/** Written by mcp-handshake. */
export interface Charge {
  /** Counts the request instead of the caller's minute (the MCP handshake rule). */
  bucket: Bucket | null;
  /** Units of the per-minute limit the request uses: one, or one per message of an MCP batch. */
  cost: number;
}

/** Everything the stages share about one request: one object, written part by part as the stages hand on. */
export interface Exchange extends Received, Resolved, AuthBudget, Authenticated, Charge {}

/** A field a stage writes for the later ones (the Received ones are there from the start). */
export type Field = Exclude<keyof Exchange, keyof Received>;

/** What a stage reads of the exchange beyond Received, and what it writes. */
export interface Handoff {
  readonly reads: readonly Field[];
  readonly writes: readonly Field[];
}

/** The exchange as one stage sees it: Received, what it reads (read-only) and what it writes. */
export type View<H extends Handoff> = Received & Readonly<Pick<Exchange, H['reads'][number]>> & Pick<Exchange, H['writes'][number]>;

// A method's parameter is checked both ways: a `next` written for the whole exchange (a test's) fits a stage's view.
export type Next<X = Exchange> = { hand(x: X): void | Promise<void> }['hand'];
export type Stage<X = Exchange> = (x: X, next: Next<X>) => void | Promise<void>;

/** A stage as the pipeline runs it: its name and its hand-off beside the function. */
export interface NamedStage {
  readonly name: string;
  readonly handoff: Handoff;
  readonly run: Stage;
}

/** Names a stage and declares its hand-off; the stage's code is typed by it, so it cannot touch another field. */
export function namedStage<H extends Handoff>(name: string, handoff: H, run: Stage<View<H>>): NamedStage {
  // The pipeline hands every stage the whole exchange, and `next` gets the same object back: a view of it is safe.
  return { name, handoff, run: run as unknown as Stage };
}

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
  return new RequestExchange(req, res, next, clientIp(req), resource, ipv6Prefix);
}

/** One shape for every exchange; the address key is worked out only for a request a per-address limit counts. */
class RequestExchange implements Exchange {
  path = '';
  sandboxPath = false;
  route: RouteDef = UNROUTED;
  miss: Exclude<Resolution, { kind: 'route' }> | null = null;
  bucket: Bucket | null = null;
  cost = 1;
  principal: Principal | null = null;
  refusal: AppError | null = null;
  mayAskIdentity: () => boolean | Promise<boolean> = askAlways;
  #addressKey: string | undefined = undefined;

  constructor(
    readonly req: Request,
    readonly res: Response,
    readonly next: NextFunction,
    readonly ip: string,
    public resource: ProtectedResource,
    private readonly ipv6Prefix: number | undefined,
  ) {}

  get addressKey(): string {
    return (this.#addressKey ??= addressKeyOf(this.ip, this.ipv6Prefix));
  }
}

/** The addresses seen lately and their limit keys, per IPv6 prefix length: parsing an address costs more than the rest of its count. */
const addressKeys = new Map<number | undefined, Map<string, string>>();
const ADDRESS_KEYS_KEPT = 10_000;

function addressKeyOf(ip: string, ipv6Prefix: number | undefined): string {
  let keys = addressKeys.get(ipv6Prefix);
  if (!keys) addressKeys.set(ipv6Prefix, (keys = new Map()));
  let key = keys.get(ip);
  if (key === undefined) {
    key = limitKeyOfAddress(ip, { ipv6Prefix });
    // Bounded: many addresses start the cache again rather than grow it.
    if (keys.size >= ADDRESS_KEYS_KEPT) keys.clear();
    keys.set(ip, key);
  }
  return key;
}

/**
 * Runs `stages` in order, each handing on to the next; the chain is built
 * once. A stage may throw before it hands on, and the result is a promise
 * only when a stage made one: a request the stages settle in one tick costs
 * no promise (`pipeline` wraps it for callers that want one).
 */
export function chain(stages: readonly (Stage | NamedStage)[]): (x: Exchange) => void | Promise<void> {
  let run: Next = () => undefined;
  for (const stage of [...stages].reverse()) {
    const after = run;
    const step = typeof stage === 'function' ? stage : stage.run;
    run = (x) => step(x, after);
  }
  return run;
}

/** `chain` as a promise: a stage that throws before its first await rejects it. */
export function pipeline(stages: readonly (Stage | NamedStage)[]): (x: Exchange) => Promise<void> {
  const run = chain(stages);
  return async (x) => run(x);
}
