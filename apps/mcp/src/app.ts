import type { CallContext } from '@msa/contracts';
import {
  bodyDeadline,
  finishServiceApp,
  healthRoutes,
  internalAuth,
  onlyWithBody,
  requestContext,
  type Metrics,
} from '@msa/service-kit';
import express, { type Express } from 'express';
import { createOriginPolicy } from './domain/origin-policy.js';
import { buildMcpServer } from './mcp/build-server.js';
import type { McpDeps } from './mcp/deps.js';
import { createMcpDispatcher, type McpDispatcher } from './mcp/dispatch.js';
import { createEnvelopeFactory } from './mcp/tool-result.js';
import { mcpRoutes } from './routes/mcp-routes.js';

export interface AppDeps extends Omit<McpDeps, 'toolCalls' | 'envelope' | 'urls'> {
  internalAuthSecret: string;
  production: boolean;
  allowedOrigins?: readonly string[];
  allowedHosts?: readonly string[];
  metrics?: Metrics;
  /** A body not received in full this long after the request began gets 408 (15 s by default), as in every service. */
  bodyDeadlineMs?: number;
}

export interface McpApp {
  app: Express;
  dispatcher: McpDispatcher;
}

/**
 * The mcp service: health, internal auth, then POST /mcp. It does
 * not use the kit's JSON body parser: on /mcp a malformed body is a JSON-RPC
 * parse error (-32700), not the API's `invalid_json` envelope.
 */
export function createMcpApp(deps: AppDeps): McpApp {
  const { logger, metrics, publicBaseUrl } = deps;
  const root = publicBaseUrl.replace(/\/+$/, '');
  const toolCalls = metrics?.counter('mcp_tool_calls_total', 'MCP tool calls by tool and outcome', ['tool', 'outcome']);
  const messages = metrics?.counter('mcp_messages_total', 'JSON-RPC messages received by method', ['method']);
  const mcpDeps: McpDeps = {
    ...deps,
    urls: { root },
    envelope: createEnvelopeFactory(root),
    ...(toolCalls ? { toolCalls } : {}),
  };
  const dispatcher = createMcpDispatcher((ctx: CallContext, offer) => buildMcpServer(mcpDeps, ctx, offer), {
    onerror: (err) => logger.debug({ err }, 'mcp protocol error'),
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(logger));
  // Timed here; /metrics is served on the admin port.
  if (metrics) app.use(metrics.http);
  app.use(healthRoutes());
  app.use(internalAuth(deps.internalAuthSecret, 'mcp'));
  // The kit's deadline, not its parsers: a body trickled in holds no request here for longer.
  app.use(onlyWithBody([bodyDeadline({ publicBaseUrl, ...(deps.bodyDeadlineMs ? { deadlineMs: deps.bodyDeadlineMs } : {}) })]));
  app.use(
    mcpRoutes({
      dispatcher,
      policy: createOriginPolicy({
        publicBaseUrl,
        production: deps.production,
        allowedOrigins: deps.allowedOrigins,
        allowedHosts: deps.allowedHosts,
      }),
      publicBaseUrl,
      logger,
      onMessage: (method) => messages?.inc({ method }),
    }),
  );
  finishServiceApp(app, { logger, publicBaseUrl });
  return { app, dispatcher };
}

/** The express app alone, for callers that do not need to close the dispatcher. */
export function createApp(deps: AppDeps): Express {
  return createMcpApp(deps).app;
}
