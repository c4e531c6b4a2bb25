// Tracing is switched on per deployment with OTEL_EXPORTER_OTLP_ENDPOINT
// (docs/operations.md); that only works if every process starts it. The
// kit's startTelemetry has its own tests; this checks each main.ts calls it.
import { describe, expect, it } from 'vitest';
import { APPS, readText } from './deploy-support.js';

describe.each(APPS)('apps/%s/src/main.ts', (app) => {
  const main = readText(`apps/${app}/src/main.ts`);

  it('starts tracing under its service name with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    const call = new RegExp(`startTelemetry\\(\\s*'${app}',\\s*\\{\\s*endpoint:\\s*config\\.OTEL_EXPORTER_OTLP_ENDPOINT\\s*\\}\\s*\\)`);

    expect(main).toMatch(call);
  });

  it('flushes the spans on shutdown', () => {
    const stop = /const (\w+) = await startTelemetry\(/.exec(main)?.[1];

    expect(stop).toBeDefined();
    expect(main).toMatch(new RegExp(`onShutdown\\([^;]*\\b${stop}\\b`, 's'));
  });
});
