import { appError, type CachedSource, createCachedSource, createLogger, createMetrics, listenWithAdmin, type Logger, type RunningService } from '@msa/service-kit';
import { createApp } from './app.js';
import type { CatalogConfig } from './config.js';
import { createCatalogIndex, type CatalogIndex } from './domain/catalog-index.js';
import { createCatalogFileSource, createCatalogHttpSource, type CatalogSource } from './source/catalog-source.js';

export interface ServiceDeps {
  logger?: Logger;
  /** Replaces the source chosen from the config (tests). */
  source?: CatalogSource;
  now?: () => number;
}

/** A failed load is retried after this long at most, however long the refresh interval is. */
const MAX_RETRY_MS = 30_000;

export function createCatalogCache(config: CatalogConfig, logger: Logger, deps: ServiceDeps = {}): CachedSource<CatalogIndex> {
  const source =
    deps.source ??
    (config.CATALOG_SOURCE_URL
      ? createCatalogHttpSource(config.CATALOG_SOURCE_URL, { timeoutMs: config.CATALOG_SOURCE_TIMEOUT_MS })
      : createCatalogFileSource());
  const refreshMs = config.CATALOG_REFRESH_SECONDS * 1000;
  return createCachedSource({
    source,
    prepare: createCatalogIndex,
    refreshMs,
    retryMs: Math.min(refreshMs, MAX_RETRY_MS),
    logger,
    now: deps.now,
    unavailable: () =>
      appError('catalog_unavailable', 'The catalog source is unavailable and no earlier copy is cached.'),
  });
}

/** Builds the catalog service and listens on CATALOG_PORT and CATALOG_ADMIN_PORT (0 = a free port, for tests). */
export async function startService(config: CatalogConfig, deps: ServiceDeps = {}): Promise<RunningService> {
  const logger = deps.logger ?? createLogger({ service: 'catalog', level: config.LOG_LEVEL });
  const catalog = createCatalogCache(config, logger, deps);
  // Load before listening so the first request does not pay for it; a source
  // that is down now is retried on demand, and /readyz says so meanwhile.
  await catalog.get().catch(() => undefined);
  const metrics = createMetrics('catalog');
  const app = createApp({
    catalog,
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    internalAuthSecret: config.INTERNAL_AUTH_SECRET,
    metrics,
  });
  const ports = await listenWithAdmin(app, metrics, {
    port: config.CATALOG_PORT,
    adminPort: config.CATALOG_ADMIN_PORT,
    host: config.BIND_ADDRESS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
  });
  return { url: ports.main.url, port: ports.main.port, adminUrl: ports.admin.url, close: ports.close };
}
