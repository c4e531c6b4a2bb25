// @module `createMetrics(service)`: own prom-client registry, default process metrics, `http_request_duration_seconds{method,route,status}`, `GET /metrics` (mounted by `createAdminApp` only), `counter()`/`histogram()` helpers
import type { ServerResponse } from 'node:http';
import type { Request, RequestHandler, Router } from 'express';
import { Router as createRouter } from 'express';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { declareRequestFields } from './request-shape.js';

export interface Metrics {
  registry: Registry;
  /** Times every request by method, route pattern and status. */
  http: RequestHandler;
  /**
   * `http`'s observation alone, for a front that already listens for
   * `finish` and keeps the request's start (requestContext's `finished`):
   * one listener and one clock per response instead of two.
   */
  timing: { finished(this: ServerResponse, startedAt: number): void };
  /** `GET /metrics` in the Prometheus text format. */
  routes: Router;
  counter(name: string, help: string, labelNames?: string[]): Counter;
  histogram(name: string, help: string, labelNames?: string[], buckets?: number[]): Histogram;
}

const STARTED = Symbol('metricsStarted');
declareRequestFields(STARTED);
type TimedRequest = Request & { [STARTED]?: number };

/**
 * How often the event-loop delay histogram (`nodejs_eventloop_lag_p99_seconds`
 * and its siblings) samples, in ms. prom-client's 10 ms woke an idle service a
 * hundred times a second, 7.7 ms of CPU a second; 100 ms costs 0.8. The
 * alerted `nodejs_eventloop_lag_seconds` is measured at each scrape instead.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** One registry per service instance, so tests can build several apps in one process. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One listener shared by all requests and one prom-client child per label
  // set, found through maps by route, method and status instead of a label
  // key built per request; no timer closure, finish closure or label merge.
  type Child = ReturnType<typeof duration.labels>;
  const children = new Map<string, Map<string, Map<number, Child>>>();
  function childOf(method: string, route: string, status: number): Child {
    let byMethod = children.get(route);
    if (!byMethod) children.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let child = byStatus.get(status);
    if (!child) byStatus.set(status, (child = duration.labels(method, route, String(status))));
    return child;
  }
  // As a `finish` listener (`http`) it gets no start and reads the request's own.
  function observeFinished(this: ServerResponse, startedAt?: number) {
    const req = this.req as TimedRequest;
    // The matched pattern, not the raw path, keeps label cardinality bounded.
    const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : req.baseUrl || 'unmatched';
    childOf(req.method, route, this.statusCode).observe((performance.now() - (startedAt ?? req[STARTED]!)) / 1000);
  }
  const http: RequestHandler = (req, res, next) => {
    (req as TimedRequest)[STARTED] = performance.now();
    res.on('finish', observeFinished);
    next();
  };
  const routes = createRouter();
  routes.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', registry.contentType);
    res.send(await registry.metrics());
  });
  return {
    registry,
    http,
    timing: { finished: observeFinished },
    routes,
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers: [registry] }),
    histogram: (name, help, labelNames = [], buckets) =>
      new Histogram({ name, help, labelNames, registers: [registry], ...(buckets ? { buckets } : {}) }),
  };
}
