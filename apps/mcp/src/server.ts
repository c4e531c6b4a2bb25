import { createCatalogClient, createRequestsClient, createShopsClient } from '@msa/contracts';
import { closeServer, createInternalSigner, createLogger, createMetrics, listen, type Logger, type RunningService } from '@msa/service-kit';
import { createMcpApp } from './app.js';
import type { McpConfig } from './config.js';

export interface ServiceDeps {
  logger?: Logger;
}

/** Builds the mcp service and listens on MCP_PORT (0 = a free port, for tests). */
export async function startService(config: McpConfig, deps: ServiceDeps = {}): Promise<RunningService> {
  const logger = deps.logger ?? createLogger({ service: 'mcp', level: config.LOG_LEVEL });
  const sign = createInternalSigner(config.INTERNAL_AUTH_SECRET);
  const timeoutMs = config.MCP_UPSTREAM_TIMEOUT_MS;
  const { app, dispatcher } = createMcpApp({
    catalog: createCatalogClient({ baseUrl: config.CATALOG_URL, sign, timeoutMs }),
    shops: createShopsClient({ baseUrl: config.SHOPS_URL, sign, timeoutMs }),
    requests: createRequestsClient({ baseUrl: config.REQUESTS_URL, sign, timeoutMs }),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    internalAuthSecret: config.INTERNAL_AUTH_SECRET,
    production: config.NODE_ENV === 'production',
    allowedOrigins: config.MCP_ALLOWED_ORIGINS,
    allowedHosts: config.MCP_ALLOWED_HOSTS,
    logger,
    metrics: createMetrics('mcp'),
  });
  const { server, port, url } = await listen(app, config.MCP_PORT);
  return {
    url,
    port,
    async close() {
      await closeServer(server);
      await dispatcher.close();
    },
  };
}
