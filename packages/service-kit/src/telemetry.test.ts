import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTelemetry } from './telemetry.js';

// Where @opentelemetry/api keeps its global providers once an SDK registers them.
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

describe('startTelemetry', () => {
  it('does nothing without an endpoint and returns a shutdown that resolves', async () => {
    const stop = await startTelemetry('catalog', { endpoint: undefined });

    await expect(stop()).resolves.toBeUndefined();
    expect((globalThis as Record<symbol, unknown>)[OTEL_GLOBAL]).toBeUndefined();
    expect((http.Server.prototype.emit as { __wrapped?: boolean }).__wrapped).toBeUndefined();
  });

  it('treats an empty endpoint as unset', async () => {
    const stop = await startTelemetry('catalog', { endpoint: '' });

    await stop();
    expect((globalThis as Record<symbol, unknown>)[OTEL_GLOBAL]).toBeUndefined();
  });
});
