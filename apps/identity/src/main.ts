import { createLogger, exitOnStartupError, loadConfig, onShutdown, startTelemetry } from '@msa/service-kit';
import { IdentityEnv, type IdentityConfig } from './config.js';
import { startService } from './server.js';

let config: IdentityConfig;
try {
  config = loadConfig(IdentityEnv);
} catch (err) {
  exitOnStartupError(undefined, err);
}
const logger = createLogger({ service: 'identity', level: config.LOG_LEVEL });
try {
  const stopTelemetry = await startTelemetry('identity', { endpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
  const running = await startService(config, { logger });
  logger.info({ port: running.port }, 'listening');
  onShutdown(logger, [() => running.close(), stopTelemetry], { deadlineMs: config.SHUTDOWN_DEADLINE_MS });
} catch (err) {
  exitOnStartupError(logger, err);
}
