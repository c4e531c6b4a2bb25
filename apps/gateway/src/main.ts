import { createLogger, exitOnStartupError, loadConfig, onShutdown, startTelemetry } from '@msa/service-kit';
import { GatewayEnv, type GatewayConfig } from './config.js';
import { startService } from './server.js';

let config: GatewayConfig;
try {
  config = loadConfig(GatewayEnv);
} catch (err) {
  exitOnStartupError(undefined, err);
}
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
try {
  const stopTelemetry = await startTelemetry('gateway', { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const running = await startService(config, { logger });
  logger.info({ port: running.port, url: config.PUBLIC_BASE_URL }, 'listening');
  onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
} catch (err) {
  exitOnStartupError(logger, err);
}
