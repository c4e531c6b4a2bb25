// @module `createDependencyHealth(metrics, probes, { timeoutMs, maxAgeMs })`: each dependency probed within a deadline, the report cached briefly and exported as a gauge
import { Gauge } from 'prom-client';
import { answerWithin } from './answer-within.js';
import type { Metrics } from './metrics.js';

/** One dependency's probe: resolves when it can serve this service, throws otherwise. */
export type DependencyProbe = () => Promise<unknown>;

export interface DependencyState {
  up: boolean;
  /** How long the probe took (or until it gave up). */
  latency_ms: number;
  /** Why it is down. */
  error?: string;
}

export interface DependencyReport {
  /** `ok` when every dependency is up, `degraded` otherwise. */
  status: 'ok' | 'degraded';
  checked_at: string;
  dependencies: Record<string, DependencyState>;
}

export interface DependencyHealth {
  /** Probes every dependency (at most once per `maxAgeMs`; concurrent callers share one round). */
  check(): Promise<DependencyReport>;
}

export interface DependencyHealthOptions {
  /** A probe that has not answered by then counts as down. */
  timeoutMs?: number;
  /** A report this young is answered again instead of probing anew (a scrape and a look at once). */
  maxAgeMs?: number;
}

/**
 * What a service's neighbours look like from here, apart from readiness: a
 * dependency that is down degrades some answers but does not take the
 * process out of rotation. `dependency_up{dependency}` (1 or 0) is set on
 * every Prometheus scrape, and `GET /dependencies` answers the detail as
 * JSON beside `/metrics` (on `metrics.routes`, which only the admin port serves).
 */
export function createDependencyHealth(metrics: Metrics, probes: Record<string, DependencyProbe>, { timeoutMs = 2_000, maxAgeMs = 1_000 }: DependencyHealthOptions = {}): DependencyHealth {
  let last: { at: number; report: Promise<DependencyReport> } | undefined;

  async function probe(name: string, run: DependencyProbe): Promise<[string, DependencyState]> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      await answerWithin(run(), timeoutMs, name);
      return [name, { up: true, latency_ms: latency() }];
    } catch (err) {
      return [name, { up: false, latency_ms: latency(), error: err instanceof Error ? err.message : String(err) }];
    }
  }

  async function round(): Promise<DependencyReport> {
    const states = Object.fromEntries(await Promise.all(Object.entries(probes).map(([name, run]) => probe(name, run))));
    const allUp = Object.values(states).every((s) => s.up);
    return { status: allUp ? 'ok' : 'degraded', checked_at: new Date().toISOString(), dependencies: states };
  }

  function check(): Promise<DependencyReport> {
    const now = Date.now();
    if (!last || now - last.at > maxAgeMs) last = { at: now, report: round() };
    return last.report;
  }

  new Gauge({
    name: 'dependency_up',
    help: 'Whether a dependency answered its probe at the last scrape (1) or not (0)',
    labelNames: ['dependency'],
    registers: [metrics.registry],
    async collect() {
      const { dependencies } = await check();
      for (const [name, state] of Object.entries(dependencies)) this.set({ dependency: name }, state.up ? 1 : 0);
    },
  });

  metrics.routes.get('/dependencies', async (_req, res) => {
    res.json(await check());
  });
  return { check };
}
