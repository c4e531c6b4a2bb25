// Tracing is switched on per deployment with OTEL_EXPORTER_OTLP_ENDPOINT
// (docs/operations.md); that only works if every process starts it. The
// kit's startTelemetry has its own tests; this checks that each main.ts runs
// through the kit's runMain under its own service name, and that runMain
// starts tracing with the endpoint and flushes it on shutdown.
import { describe, expect, it } from 'vitest';
import { APPS, readText } from './deploy-support.js';

describe.each(APPS)('apps/%s/src/main.ts', (app) => {
  const main = readText(`apps/${app}/src/main.ts`);

  it('runs as a service named after its app', () => {
    expect(main).toMatch(/import \{[^}]*\brunMain\b[^}]*\} from '@msa\/service-kit'/);
    expect(main).toMatch(new RegExp(`runMain\\(\\{[^]*?\\bservice:\\s*'${app}'`));
  });
});

describe('runMain', () => {
  const runMain = readText('packages/service-kit/src/run-main.ts');

  it('starts tracing under the service name with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(runMain).toMatch(/startTelemetry\(\s*options\.service,\s*\{\s*endpoint:\s*config\.OTEL_EXPORTER_OTLP_ENDPOINT\s*\}\s*\)/);
  });

  it('flushes the spans on shutdown', () => {
    const stop = /const (\w+) = await startTelemetry\(/.exec(runMain)?.[1];

    expect(stop).toBeDefined();
    expect(runMain).toMatch(new RegExp(`onShutdown\\([^;]*\\b${stop}\\b`, 's'));
  });
});
