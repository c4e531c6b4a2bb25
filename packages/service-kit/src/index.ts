import './types.js';

export * from './app.js';
export * from './config.js';
export * from './error-handler.js';
export * from './errors.js';
export * from './health.js';
export * from './http.js';
export * from './idempotency.js';
export * from './internal-auth.js';
export * from './limits.js';
export * from './logger.js';
export * from './metrics.js';
export * from './redis.js';
export * from './request-context.js';
export * from './shutdown.js';
export type {} from './types.js';
export * from './running.js';
export * from './telemetry.js';
