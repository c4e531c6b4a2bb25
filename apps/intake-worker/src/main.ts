import { createLogger, exitOnStartupError, loadConfig, onShutdown, startTelemetry } from '@msa/service-kit';
import { IntakeWorkerEnv, type IntakeWorkerConfig } from './config.js';
import { startService } from './server.js';

let config: IntakeWorkerConfig;
try {
  config = loadConfig(IntakeWorkerEnv);
} catch (err) {
  exitOnStartupError(undefined, err);
}
const logger = createLogger({ service: 'intake-worker', level: config.LOG_LEVEL });
if (!config.SMTP_URL) logger.warn({ outbox: config.OUTBOX_DIR }, 'SMTP_URL is not set: e-mails are written to the outbox directory');
try {
  const stopTelemetry = await startTelemetry('intake-worker', { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const running = await startService(config, { logger });
  // Running jobs finish first (worker.close), then Redis is quit; a job still
  // running at the deadline is taken over by another worker as stalled.
  onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
} catch (err) {
  exitOnStartupError(logger, err);
}
