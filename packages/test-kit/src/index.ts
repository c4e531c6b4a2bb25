export * from './context.js';
export * from './network.js';
export * from './redis.js';
export * from './feed-server.js';
export * from './redis-server.js';
export * from './smtp-sink.js';
