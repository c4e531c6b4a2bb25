export { createApp, type AppDeps } from './app.js';
export { IdentityEnv, IdentityEnv as Env, type IdentityConfig } from './config.js';
export { startService, type ServiceDeps } from './server.js';
export { createTokenKeys, type TokenKeys } from './domain/token-keys.js';
export { PrivacyCliEnv, parsePrivacyArgs, runPrivacyCommand, type PrivacyCommand } from './privacy/privacy-cli.js';
