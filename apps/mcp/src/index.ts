export { createApp, createMcpApp, type AppDeps, type McpApp } from './app.js';
export { McpEnv, McpEnv as Env, type McpConfig } from './config.js';
export { startService, type ServiceDeps } from './server.js';
export { buildMcpServer, SERVER_INFO } from './mcp/build-server.js';
export { createOriginPolicy, requestedHost, type OriginPolicy } from './domain/origin-policy.js';
