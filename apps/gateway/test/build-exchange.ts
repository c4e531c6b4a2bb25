// Exchanges and limiters for the stages' unit tests: plain objects that
// stand in for express's request and response, and in-memory limiters with
// the shape of the kit's Redis ones.
import { PassThrough } from 'node:stream';
import type { Principal } from '@msa/contracts';
import { testLogger } from '@msa/test-kit';
import type { ConsumeResult, FailureLimiter, WindowLimiter } from '@msa/service-kit/limits';
import type { NextFunction, Request, Response } from 'express';
import { protectedResourceFor } from '../src/domain/protected-resource.js';
import type { RouteDef } from '../src/domain/route-table.js';
import { createExchange, type Exchange, type Stage } from '../src/stages/exchange.js';

export const BASE = 'http://api.test.local';

export interface ExchangeOverrides {
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Sent as the body, with its Content-Length. */
  body?: string | Buffer;
  route?: RouteDef;
  principal?: Principal | null;
  ip?: string;
}

export interface TestExchange extends Exchange {
  /** What the stages handed to express's `next`. */
  passedOn: unknown[];
  /** What the response got: status, headers, ended. */
  answer: { status: number; headers: Record<string, string>; ended: boolean };
}

export function buildPrincipal(overrides: Partial<Principal> = {}): Principal {
  return { id: 'msa_client_0123456789abcdef', name: 'agent', scopes: ['catalog:read'], mode: 'live', tier: 'free', via: 'api_key', ...overrides };
}

export function buildExchange(overrides: ExchangeOverrides = {}): TestExchange {
  const url = overrides.url ?? '/v1/products';
  const stream = new PassThrough();
  const headers: Record<string, string> = { host: 'api.test.local', ...overrides.headers };
  if (overrides.body !== undefined) {
    headers['content-length'] = String(Buffer.byteLength(overrides.body));
    stream.end(overrides.body);
  }
  const req = Object.assign(stream, {
    method: overrides.method ?? 'GET',
    url,
    path: url.split('?')[0],
    headers,
    id: 'req-1',
    traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
    ip: overrides.ip ?? '203.0.113.9',
    protocol: 'http',
    socket: { remoteAddress: overrides.ip ?? '203.0.113.9' },
    log: testLogger('gateway'),
  }) as unknown as Request;
  const answer = { status: 200, headers: {} as Record<string, string>, ended: false };
  const res = {
    locals: {} as Record<string, unknown>,
    setHeader: (name: string, value: string) => void (answer.headers[name.toLowerCase()] = String(value)),
    getHeader: (name: string) => answer.headers[name.toLowerCase()],
    hasHeader: (name: string) => name.toLowerCase() in answer.headers,
    status(code: number) {
      answer.status = code;
      return this;
    },
    end: () => void (answer.ended = true),
  } as unknown as Response;
  const passedOn: unknown[] = [];
  const next: NextFunction = (err?: unknown) => void passedOn.push(err);
  const x = createExchange(req, res, next, protectedResourceFor(BASE, false, false)) as TestExchange;
  if (overrides.route) x.route = overrides.route;
  if (overrides.principal !== undefined) x.principal = overrides.principal;
  return Object.assign(x, { passedOn, answer });
}

/** A route as the table builds them. */
export function buildRoute(overrides: Partial<RouteDef> = {}): RouteDef {
  return { operation: 'listProducts', method: 'GET', path: '/v1/products', target: 'catalog', auth: 'open', scope: 'catalog:read', ...overrides };
}

/** A fixed-window limiter in memory; `down` makes every call fail as Redis would. */
export function memoryWindowLimiter(policy: string, points: number, opts: { down?: boolean } = {}): WindowLimiter & { keys: string[] } {
  const counts = new Map<string, number>();
  const keys: string[] = [];
  return {
    policy,
    points,
    keys,
    /** As the Redis one: `cost` units at once, a refused charge of several given back. */
    async consume(key: string, cost = 1): Promise<ConsumeResult> {
      if (opts.down) throw new Error('connect ECONNREFUSED');
      keys.push(key);
      const used = (counts.get(key) ?? 0) + cost;
      const allowed = used <= points;
      counts.set(key, allowed || cost === 1 ? used : used - cost);
      const remaining = Math.max(0, points - (counts.get(key) ?? 0));
      return { allowed, state: { policy, limit: points, windowSeconds: 60, remaining, resetSeconds: 42 } };
    },
  };
}

/** The failed-auth limiter in memory, with counts of its calls. */
export function memoryFailureLimiter(points: number, failedBefore = 0): FailureLimiter & { calls: { check: number; fail: number } } {
  let failed = failedBefore;
  const calls = { check: 0, fail: 0 };
  const state = () => ({ policy: 'failed-auth', limit: points, windowSeconds: 60, remaining: Math.max(0, points - failed), resetSeconds: 42 });
  return {
    policy: 'failed-auth',
    points,
    calls,
    async check() {
      calls.check++;
      return { allowed: failed < points, state: state() };
    },
    async fail() {
      calls.fail++;
      failed++;
      return { allowed: failed <= points, state: state() };
    },
  } as unknown as FailureLimiter & { calls: { check: number; fail: number } };
}

/** A stage's `next` that records that it ran. */
export function recordingNext(): { next: (x: Exchange) => void; ran: () => boolean } {
  let ran = false;
  return { next: () => void (ran = true), ran: () => ran };
}

/** Runs one stage as the pipeline does: a throw before its first await becomes a rejection. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a stage sees its own view of the exchange; tests hand it a whole one
export async function runStage(stage: Stage<any>, x: Exchange, next: (x: Exchange) => void | Promise<void> = () => undefined): Promise<void> {
  return stage(x, next);
}
