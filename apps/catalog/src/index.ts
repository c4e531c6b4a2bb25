export { createApp, type AppDeps } from './app.js';
export { CatalogEnv, type CatalogConfig } from './config.js';
export { startService, createCatalogCache, type ServiceDeps } from './server.js';
export type { CatalogSource } from './source/catalog-source.js';
