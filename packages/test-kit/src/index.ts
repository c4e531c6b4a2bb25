export * from './context.js';
export * from './network.js';
export * from './redis.js';
