import { createRequire } from 'node:module';
import type { IntervalHistogram, monitorEventLoopDelay as MonitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

// prom-client reads the function off the CommonJS module object at each call.
const perfHooks = createRequire(import.meta.url)('perf_hooks') as { monitorEventLoopDelay: typeof MonitorEventLoopDelay };

describe('createMetrics', () => {
  it('samples the event-loop delay ten times a second, not a hundred', () => {
    const original = perfHooks.monitorEventLoopDelay;
    const asked: (number | undefined)[] = [];
    const made: IntervalHistogram[] = [];
    perfHooks.monitorEventLoopDelay = (options) => {
      asked.push(options?.resolution);
      const histogram = original(options);
      made.push(histogram);
      return histogram;
    };
    try {
      createMetrics('catalog');
    } finally {
      perfHooks.monitorEventLoopDelay = original;
      for (const histogram of made) histogram.disable();
    }
    expect(asked).toEqual([100]);
  });

  it('still reports the event-loop delay percentiles and the lag the alert reads', async () => {
    const metrics = createMetrics('catalog');
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds\{service="catalog"\} /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds\{service="catalog"\} /m);
  });
});
