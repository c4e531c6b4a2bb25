// Builds the real catalog app for component tests, with the config parsed the
// way main.ts parses it and internal auth signed by the test kit.
import { loadConfig } from '@msa/service-kit';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, internalHeaders, testLogger } from '@msa/test-kit';
import type { CallContext } from '@msa/contracts';
import { createApp } from '../src/app.js';
import { CatalogEnv, type CatalogConfig } from '../src/config.js';
import { createCatalogCache, type ServiceDeps } from '../src/server.js';

export function buildConfig(env: Record<string, string> = {}): CatalogConfig {
  return loadConfig(CatalogEnv, {
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    CATALOG_PORT: '0',
    CATALOG_ADMIN_PORT: '0',
    ...env,
  });
}

export function buildCatalogApp(env: Record<string, string> = {}, deps: ServiceDeps = {}) {
  const config = buildConfig(env);
  const logger = deps.logger ?? testLogger('catalog');
  const catalog = createCatalogCache(config, logger, deps);
  return createApp({ catalog, logger, publicBaseUrl: config.PUBLIC_BASE_URL, internalAuthSecret: config.INTERNAL_AUTH_SECRET });
}

/** The X-Internal-Auth header the gateway would send to the catalog. */
export function asGateway(ctx: Partial<CallContext> = {}): Record<string, string> {
  return internalHeaders('catalog', ctx);
}
