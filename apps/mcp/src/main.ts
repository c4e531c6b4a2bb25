import { createLogger, exitOnStartupError, loadConfig, onShutdown, startTelemetry } from '@msa/service-kit';
import { McpEnv, type McpConfig } from './config.js';
import { startService } from './server.js';

let config: McpConfig;
try {
  config = loadConfig(McpEnv);
} catch (err) {
  exitOnStartupError(undefined, err);
}
const logger = createLogger({ service: 'mcp', level: config.LOG_LEVEL });
try {
  const stopTelemetry = await startTelemetry('mcp', { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const running = await startService(config, { logger });
  logger.info({ port: running.port, catalog: config.CATALOG_URL, shops: config.SHOPS_URL, requests: config.REQUESTS_URL }, 'listening');
  onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
} catch (err) {
  exitOnStartupError(logger, err);
}
