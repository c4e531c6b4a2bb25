export { createApp, createShopRequestCounters, type AppDeps } from './app.js';
export { RequestsEnv, RequestsEnv as Env, type RequestsConfig } from './config.js';
export { startService, type ServiceDeps } from './server.js';
export { createProductCatalog, type ProductCatalog } from './catalog/product-catalog.js';
export { createIntakeQueue, intakeJobOptions, type IntakeQueue } from './intake/intake-queue.js';
export { createReconciler, type Reconciler } from './intake/reconciler.js';
export { createShopRequestQuotas, type ShopRequestQuotas } from './store/shop-request-quotas.js';
export { createShopRequestStore, type ShopRequestStore } from './store/shop-request-store.js';
export { createQuoteStore, type QuoteStore } from './store/quote-store.js';
