// Builds the real shops app for component tests, with the config parsed the
// way main.ts parses it and internal auth signed by the test kit.
import type { CallContext } from '@msa/contracts';
import { loadConfig } from '@msa/service-kit';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, internalHeaders, testLogger } from '@msa/test-kit';
import { createApp } from '../src/app.js';
import { ShopsEnv, type ShopsConfig } from '../src/config.js';
import { createShopsCache, type ServiceDeps } from '../src/server.js';

export function buildConfig(env: Record<string, string> = {}): ShopsConfig {
  return loadConfig(ShopsEnv, {
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    SHOPS_PORT: '0',
    SHOPS_ADMIN_PORT: '0',
    ...env,
  });
}

export function buildShopsApp(env: Record<string, string> = {}, deps: ServiceDeps = {}) {
  const config = buildConfig(env);
  const logger = deps.logger ?? testLogger('shops');
  const shops = createShopsCache(config, logger, deps);
  return createApp({ shops, logger, publicBaseUrl: config.PUBLIC_BASE_URL, internalAuthSecret: config.INTERNAL_AUTH_SECRET });
}

/** The X-Internal-Auth header the gateway would send to the shops service. */
export function asGateway(ctx: Partial<CallContext> = {}): Record<string, string> {
  return internalHeaders('shops', ctx);
}
