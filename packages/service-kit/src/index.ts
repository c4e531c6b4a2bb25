// @module The kit's main entry, `@msa/service-kit`: every module here except the subpaths that load ioredis or rate-limiter-flexible (`/redis`, `/limits`, which re-exports the daily quota found here too) and the fetch policy (`/address-policy`, `/public-fetch`)
import './types.js';

export * from './address-key.js';
export * from './admin-app.js';
export * from './answer-within.js';
export * from './app.js';
export * from './body-deadline.js';
export * from './cacheable.js';
export * from './cached-source.js';
export { getOrBuild } from './bounded-map.js';
export * from './client-error.js';
export * from './config.js';
export * from './daily-quota.js';
export * from './data-source.js';
export * from './dependency-health.js';
export * from './error-handler.js';
export * from './errors.js';
export * from './health.js';
export * from './http.js';
export * from './idempotency.js';
export * from './internal-auth.js';
export { jsonwebtoken } from './lazy-jsonwebtoken.js';
export * from './json-depth.js';
export * from './logger.js';
export * from './mailbox-key.js';
export * from './metrics.js';
export * from './outcome.js';
export * from './placeholder-svg.js';
// Redis clients and the Redis-backed limiters are subpaths
// (`@msa/service-kit/redis`, `/limits`): ioredis and rate-limiter-flexible
// cost a service that never talks to Redis about 10 MB of RSS.
export type { CreateRedisOptions, Redis, RedisClient, RedisRole } from './redis.js';
export * from './redis-errors.js';
export * from './request-context.js';
export * from './request-shape.js';
export * from './require-scope.js';
export * from './shutdown.js';
export type {} from './types.js';
export * from './running.js';
export * from './run-main.js';
export * from './sealed-text.js';
export * from './telemetry.js';
