import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../src/http.js';
import { startTelemetry, type StopTelemetry } from '../src/telemetry.js';

interface OtlpSpan {
  traceId: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
  }[];
}

const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

// A stand-in OTLP/HTTP collector that keeps every JSON export it receives.
async function startCollector() {
  const exports: OtlpExport[] = [];
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      paths.push(req.url ?? '');
      if (req.headers['content-type']?.startsWith('application/json')) exports.push(JSON.parse(body) as OtlpExport);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, exports, paths, close: () => closeServer(server) };
}

describe('startTelemetry with an endpoint', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let stop: StopTelemetry;
  let spans: { service: string | undefined; scope: string; span: OtlpSpan }[];

  beforeAll(async () => {
    collector = await startCollector();
    // express was imported above, before the SDK started: the order every service has.
    stop = await startTelemetry('telemetry-test', { endpoint: `${collector.url}/` });
    const app = express();
    app.get('/things/:id', (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok' });
    });
    const running = await listen(app, 0, '127.0.0.1');

    await fetch(`${running.url}/things/42`, { headers: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } });
    await fetch(`${running.url}/healthz`);
    await closeServer(running.server);
    await stop();

    spans = collector.exports.flatMap((e) =>
      e.resourceSpans.flatMap((rs) => {
        const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        return rs.scopeSpans.flatMap((ss) => ss.spans.map((span) => ({ service, scope: ss.scope.name, span })));
      }),
    );
  });

  afterAll(async () => {
    await collector.close();
  });

  it('registers a global tracer provider', () => {
    expect((globalThis as Record<symbol, unknown>)[OTEL_GLOBAL]).toBeDefined();
  });

  it('posts spans to <endpoint>/v1/traces under the service name', () => {
    expect(collector.paths).toContain('/v1/traces');
    expect(spans.length).toBeGreaterThan(0);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['telemetry-test']));
  });

  it('continues the caller trace from the W3C traceparent header', () => {
    const server = spans.find((s) => s.scope === '@opentelemetry/instrumentation-http' && s.span.traceId === TRACE_ID);

    expect(server?.span.name).toMatch(/^GET/);
  });

  it('records express route spans for an app whose express was loaded first', () => {
    const routeSpans = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-express');

    expect(routeSpans.map((s) => s.span.traceId)).toContain(TRACE_ID);
  });

  it('leaves health probes untraced', () => {
    const probe = spans.filter((s) =>
      s.span.attributes?.some((a) => a.value.stringValue?.includes('/healthz')),
    );

    expect(probe).toEqual([]);
  });
});
