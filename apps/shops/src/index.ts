export { createApp, type AppDeps } from './app.js';
export { ShopsEnv, ShopsEnv as Env, type ShopsConfig } from './config.js';
export { startService, createShopsCache, type ServiceDeps } from './server.js';
export { SHOP_SITE_BASE_URL } from './domain/shop-view.js';
export type { ShopsSource } from './source/shop-source.js';
