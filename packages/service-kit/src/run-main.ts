// @module `runMain({ service, env, start, listening?, beforeStart? })`: the process of every service's main.ts: config, telemetry, start, the `listening` line, shutdown on SIGTERM
// The process of every service: parse its environment, start tracing and the
// service, log that it listens, and stop it on SIGTERM. Each app's main.ts
// calls this with what differs: its name, schema, start function and the
// fields of its "listening" line.
import type { z } from 'zod';
import { loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import type { RunningService } from './running.js';
import { exitOnStartupError, onShutdown } from './shutdown.js';
import { startTelemetry } from './telemetry.js';

/** The variables runMain reads itself; every service's schema has them through CommonEnv. */
interface ProcessEnv {
  LOG_LEVEL: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  SHUTDOWN_DEADLINE_MS: number;
}

export interface MainOptions<S extends z.ZodType<ProcessEnv>, R extends RunningService> {
  service: string;
  env: S;
  start(config: z.infer<S>, deps: { logger: Logger }): Promise<R>;
  /** Fields of the `listening` line; without it none is logged (a worker listens only for its admin port). */
  listening?(config: z.infer<S>, running: R): Record<string, unknown>;
  /** Warnings about the configuration, logged before anything starts. */
  beforeStart?(config: z.infer<S>, logger: Logger): void;
}

/** Runs a service as its own process; a start-up failure exits 1 with the reason logged. */
export async function runMain<S extends z.ZodType<ProcessEnv>, R extends RunningService>(options: MainOptions<S, R>): Promise<void> {
  let config: z.infer<S>;
  try {
    config = loadConfig(options.env);
  } catch (err) {
    exitOnStartupError(undefined, err);
  }
  const logger = createLogger({ service: options.service, level: config.LOG_LEVEL });
  options.beforeStart?.(config, logger);
  try {
    const stopTelemetry = await startTelemetry(options.service, { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
    const running = await options.start(config, { logger });
    if (options.listening) logger.info(options.listening(config, running), 'listening');
    // Closing the service lets running work finish first (a worker's jobs too), then its connections.
    onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
  } catch (err) {
    exitOnStartupError(logger, err);
  }
}
