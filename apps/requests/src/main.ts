import { createLogger, exitOnStartupError, loadConfig, onShutdown, startTelemetry } from '@msa/service-kit';
import { RequestsEnv, type RequestsConfig } from './config.js';
import { startService } from './server.js';

let config: RequestsConfig;
try {
  config = loadConfig(RequestsEnv);
} catch (err) {
  exitOnStartupError(undefined, err);
}
const logger = createLogger({ service: 'requests', level: config.LOG_LEVEL });
try {
  const stopTelemetry = await startTelemetry('requests', { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const running = await startService(config, { logger });
  logger.info({ port: running.port, catalog: config.CATALOG_URL, queuePrefix: config.QUEUE_PREFIX }, 'listening');
  onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
} catch (err) {
  exitOnStartupError(logger, err);
}
