export { createApp, type AppDeps } from './app.js';
export { CatalogEnv, CatalogEnv as Env, type CatalogConfig } from './config.js';
export { startService, createCatalogCache, type ServiceDeps } from './server.js';
export type { CatalogSource } from './source/catalog-source.js';
export { createCatalogIndex, type CatalogIndex, type ProductFilter } from './domain/catalog-index.js';
export { CatalogEntry } from './source/catalog-entry.js';
export { productListJson } from './domain/product-list-json.js';
