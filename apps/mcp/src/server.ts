import { createCatalogClient, createRequestsClient, createShopsClient } from '@msa/contracts';
import { createInternalSigner, createLogger, createMetrics, listenWithAdmin, type Logger, type RunningService } from '@msa/service-kit';
import { createMcpApp } from './app.js';
import type { McpConfig } from './config.js';

export interface ServiceDeps {
  logger?: Logger;
}

/** Builds the mcp service and listens on MCP_PORT and MCP_ADMIN_PORT (0 = a free port, for tests). */
export async function startService(config: McpConfig, deps: ServiceDeps = {}): Promise<RunningService> {
  const logger = deps.logger ?? createLogger({ service: 'mcp', level: config.LOG_LEVEL });
  const sign = createInternalSigner(config.INTERNAL_AUTH_SECRET);
  const timeoutMs = config.MCP_UPSTREAM_TIMEOUT_MS;
  const metrics = createMetrics('mcp');
  const { app, dispatcher } = createMcpApp({
    catalog: createCatalogClient({ baseUrl: config.CATALOG_URL, sign, timeoutMs }),
    shops: createShopsClient({ baseUrl: config.SHOPS_URL, sign, timeoutMs }),
    requests: createRequestsClient({ baseUrl: config.REQUESTS_URL, sign, timeoutMs }),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    internalAuthSecret: config.INTERNAL_AUTH_SECRET,
    production: config.NODE_ENV === 'production',
    allowedOrigins: config.MCP_ALLOWED_ORIGINS,
    allowedHosts: config.MCP_ALLOWED_HOSTS,
    toolDeadlineMs: config.TOOL_DEADLINE_MS,
    logger,
    metrics,
  });
  const ports = await listenWithAdmin(app, metrics, {
    port: config.MCP_PORT,
    adminPort: config.MCP_ADMIN_PORT,
    host: config.BIND_ADDRESS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
  });
  return {
    url: ports.main.url,
    port: ports.main.port,
    adminUrl: ports.admin.url,
    async close() {
      await ports.close();
      await dispatcher.close();
    },
  };
}
