export { createApp, createAdminApp, type GatewayDeps } from './app.js';
export { GatewayEnv as Env, GatewayEnv, type GatewayConfig } from './config.js';
export { ROUTES, type RouteDef } from './domain/route-table.js';
export { startService, type RunningGateway } from './server.js';
