import { describe, expect, it } from 'vitest';
import { createDependencyHealth } from './dependency-health.js';
import { createMetrics } from './metrics.js';

const up = async () => 'PONG';
const down = async () => {
  throw new Error('connection refused');
};

describe('createDependencyHealth', () => {
  it('reports ok when every dependency answers', async () => {
    const health = createDependencyHealth(createMetrics('test'), { catalog: up, redis: up });

    const report = await health.check();

    expect(report.status).toBe('ok');
    expect(report.dependencies).toEqual({
      catalog: { up: true, latency_ms: expect.any(Number) },
      redis: { up: true, latency_ms: expect.any(Number) },
    });
  });

  it('reports degraded with the reason of the dependency that is down', async () => {
    const health = createDependencyHealth(createMetrics('test'), { catalog: up, identity: down });

    const report = await health.check();

    expect(report.status).toBe('degraded');
    expect(report.dependencies.catalog?.up).toBe(true);
    expect(report.dependencies.identity).toMatchObject({ up: false, error: 'connection refused' });
  });

  it('counts a probe that does not answer in time as down', async () => {
    const hangs = () => new Promise<never>(() => undefined);
    const health = createDependencyHealth(createMetrics('test'), { catalog: hangs }, { timeoutMs: 20 });

    const report = await health.check();

    expect(report.dependencies.catalog).toMatchObject({ up: false, error: expect.any(String) });
  });

  it('lets concurrent callers and callers within maxAgeMs share one round, and probes anew after it', async () => {
    let probes = 0;
    const counted = async () => {
      probes++;
    };
    const health = createDependencyHealth(createMetrics('test'), { catalog: counted }, { maxAgeMs: 50 });

    const [a, b] = await Promise.all([health.check(), health.check()]);
    const c = await health.check();
    expect(probes).toBe(1);
    expect(b).toBe(a);
    expect(c).toBe(a);

    await new Promise((r) => setTimeout(r, 60));
    await health.check();
    expect(probes).toBe(2);
  });

  it('sets dependency_up to 1 or 0 for each dependency on a scrape', async () => {
    const metrics = createMetrics('test');
    createDependencyHealth(metrics, { catalog: up, identity: down });

    const text = await metrics.registry.getSingleMetricAsString('dependency_up');

    expect(text).toMatch(/^dependency_up\{[^}]*dependency="catalog"[^}]*\} 1$/m);
    expect(text).toMatch(/^dependency_up\{[^}]*dependency="identity"[^}]*\} 0$/m);
  });
});
