// @module `startTelemetry(service, { endpoint })`: OpenTelemetry traces over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, a no-op otherwise; returns the function that flushes and stops it
// OpenTelemetry tracing, switched on by OTEL_EXPORTER_OTLP_ENDPOINT. The SDK
// and its instrumentations are loaded with import() only when an endpoint is
// given, so a service without a collector neither loads nor pays for them.
import { createRequire } from 'node:module';

export interface TelemetryOptions {
  /** OTLP/HTTP base URL (the value of OTEL_EXPORTER_OTLP_ENDPOINT); unset = tracing off. */
  endpoint?: string | undefined;
}

/** Flushes the spans still buffered and stops the SDK; a no-op when tracing is off. */
export type StopTelemetry = () => Promise<void>;

/** Probes and scrapes would otherwise be most of the spans. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

// The modules instrumented here are usually loaded before main.ts can call
// startTelemetry (the kit itself imports express). Requiring them once after
// the SDK started lets require-in-the-middle patch the shared prototypes
// (http.Server, express's Router and application) that running code uses.
const ALREADY_LOADED = ['node:http', 'node:https', 'express'];

/**
 * Starts tracing for `service` when `endpoint` is set: NodeSDK with the OTLP
 * HTTP trace exporter (`<endpoint>/v1/traces`), http and express
 * instrumentation and W3C trace context propagation. Call it in main.ts right
 * after loading the config, before the service listens, and await the
 * returned function last on shutdown.
 */
export async function startTelemetry(service: string, { endpoint }: TelemetryOptions = {}): Promise<StopTelemetry> {
  if (!endpoint) return async () => {};

  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { ExpressInstrumentation }, { W3CTraceContextPropagator }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-express'),
      import('@opentelemetry/core'),
    ]);

  const sdk = new NodeSDK({
    serviceName: service,
    traceExporter: new OTLPTraceExporter({ url: `${endpoint.replace(/\/+$/, '')}/v1/traces` }),
    textMapPropagator: new W3CTraceContextPropagator(),
    // Traces only: metrics stay with prom-client on /metrics, logs on stdout.
    // Left unset, the SDK would also export both over OTLP.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
      }),
      new ExpressInstrumentation(),
    ],
  });
  sdk.start();

  const require = createRequire(import.meta.url);
  for (const name of ALREADY_LOADED) require(name);

  return () => sdk.shutdown();
}
