import { createLogger, exitOnStartupError, loadConfig, onShutdown, startTelemetry } from '@msa/service-kit';
import { CatalogEnv, type CatalogConfig } from './config.js';
import { startService } from './server.js';

let config: CatalogConfig;
try {
  config = loadConfig(CatalogEnv);
} catch (err) {
  exitOnStartupError(undefined, err);
}
const logger = createLogger({ service: 'catalog', level: config.LOG_LEVEL });
try {
  const stopTelemetry = await startTelemetry('catalog', { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const running = await startService(config, { logger });
  logger.info({ port: running.port, source: config.CATALOG_SOURCE_URL ?? 'data/products.json' }, 'listening');
  onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
} catch (err) {
  exitOnStartupError(logger, err);
}
