import { createLogger, exitOnStartupError, loadConfig, onShutdown, startTelemetry } from '@msa/service-kit';
import { ShopsEnv, type ShopsConfig } from './config.js';
import { startService } from './server.js';

let config: ShopsConfig;
try {
  config = loadConfig(ShopsEnv);
} catch (err) {
  exitOnStartupError(undefined, err);
}
const logger = createLogger({ service: 'shops', level: config.LOG_LEVEL });
try {
  const stopTelemetry = await startTelemetry('shops', { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const running = await startService(config, { logger });
  logger.info({ port: running.port, source: config.SHOPS_SOURCE_URL ?? 'data/shops.json' }, 'listening');
  onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
} catch (err) {
  exitOnStartupError(logger, err);
}
