import { appError, type CachedSource, createCachedSource, createLogger, createMetrics, listenWithAdmin, type Logger, type RunningService } from '@msa/service-kit';
import { createApp } from './app.js';
import type { ShopsConfig } from './config.js';
import { createShopDirectory, type ShopDirectory } from './domain/shop-directory.js';
import { createShopsFileSource, createShopsHttpSource, type ShopsSource } from './source/shop-source.js';

export interface ServiceDeps {
  logger?: Logger;
  /** Replaces the source chosen from the config (tests). */
  source?: ShopsSource;
  now?: () => number;
}

/** A failed load is retried after this long at most, however long the refresh interval is. */
const MAX_RETRY_MS = 30_000;

export function createShopsCache(config: ShopsConfig, logger: Logger, deps: ServiceDeps = {}): CachedSource<ShopDirectory> {
  const source =
    deps.source ??
    (config.SHOPS_SOURCE_URL
      ? createShopsHttpSource(config.SHOPS_SOURCE_URL, { timeoutMs: config.SHOPS_SOURCE_TIMEOUT_MS })
      : createShopsFileSource());
  const refreshMs = config.SHOPS_REFRESH_SECONDS * 1000;
  return createCachedSource({
    source,
    prepare: createShopDirectory,
    refreshMs,
    retryMs: Math.min(refreshMs, MAX_RETRY_MS),
    logger,
    now: deps.now,
    unavailable: () => appError('shops_unavailable', 'The shop list source is unavailable and no earlier copy is cached.'),
  });
}

/** Builds the shops service and listens on SHOPS_PORT and SHOPS_ADMIN_PORT (0 = a free port, for tests). */
export async function startService(config: ShopsConfig, deps: ServiceDeps = {}): Promise<RunningService> {
  const logger = deps.logger ?? createLogger({ service: 'shops', level: config.LOG_LEVEL });
  const shops = createShopsCache(config, logger, deps);
  // Load before listening so the first request does not pay for it; a source
  // that is down now is retried on demand, and /readyz says so meanwhile.
  await shops.get().catch(() => undefined);
  const metrics = createMetrics('shops');
  const app = createApp({
    shops,
    logger,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    internalAuthSecret: config.INTERNAL_AUTH_SECRET,
    metrics,
  });
  const ports = await listenWithAdmin(app, metrics, {
    port: config.SHOPS_PORT,
    adminPort: config.SHOPS_ADMIN_PORT,
    host: config.BIND_ADDRESS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
  });
  return { url: ports.main.url, port: ports.main.port, adminUrl: ports.admin.url, close: ports.close };
}
