import {
  createInternalSigner,
  createLogger,
  createMetrics,
  redisTopologyOf,
  listenWithAdmin,
  type Logger,
  type Metrics,
  type RedisClient,
  type RunningService,
} from '@msa/service-kit';
import { createRedis } from '@msa/service-kit/redis';
import { createRequestsClient } from '@msa/contracts';
import { createApp } from './app.js';
import type { IdentityConfig } from './config.js';
import { createTokenKeys } from './domain/token-keys.js';
import { createConsentMailer } from './oauth/queue/consent-mailer.js';

export interface ServiceDeps {
  logger?: Logger;
  /** A connection the caller owns (and closes); otherwise one is opened from REDIS_URL. */
  redis?: RedisClient;
  metrics?: Metrics;
}

export async function startService(config: IdentityConfig, deps: ServiceDeps = {}): Promise<RunningService> {
  const logger = deps.logger ?? createLogger({ service: 'identity', level: config.LOG_LEVEL });
  const redis = deps.redis ?? createRedis(redisTopologyOf(config), 'api', { logger, label: 'store' });
  const tokenKeys = createTokenKeys(
    { privateKeyPem: config.TOKEN_SIGNING_KEY, kid: config.TOKEN_SIGNING_KID },
    config.TOKEN_VERIFY_KEYS,
  );
  const metrics = deps.metrics ?? createMetrics('identity');
  // A connection of its own for the queue: BullMQ's commands never wait behind the store's.
  const queueRedis = createRedis(redisTopologyOf(config), 'api', { logger, label: 'mail-queue' });
  const consentMailer = createConsentMailer({
    connection: queueRedis,
    prefix: config.QUEUE_PREFIX,
    internalAuthSecret: config.INTERNAL_AUTH_SECRET,
    logger,
  });
  const requests = createRequestsClient({ baseUrl: config.REQUESTS_URL, sign: createInternalSigner(config.INTERNAL_AUTH_SECRET) });
  const app = createApp({
    consentMailer,
    privacy: { requests, mailQueue: consentMailer.queue },
    clientMetadataAllowPrivate: config.CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS,
    clientMetadataLimits: {
      fetchTimeoutMs: config.CLIENT_METADATA_FETCH_TIMEOUT_MS,
      fetchesInFlight: config.CLIENT_METADATA_FETCHES_IN_FLIGHT,
      urlsPerAddressPerHour: config.CLIENT_METADATA_URLS_PER_ADDRESS_PER_HOUR,
      urlsPerHostPerHour: config.CLIENT_METADATA_URLS_PER_HOST_PER_HOUR,
      failureCacheSeconds: config.CLIENT_METADATA_FAILURE_CACHE_SECONDS,
    },
    verifiedClientHosts: config.OAUTH_VERIFIED_CLIENT_HOSTS,
    refreshReuseGraceSeconds: config.REFRESH_REUSE_GRACE_SECONDS,
    logger,
    redis,
    keyPrefix: config.REDIS_KEY_PREFIX,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    internalAuthSecret: config.INTERNAL_AUTH_SECRET,
    tokenKeys,
    metrics,
    idempotencyLockSeconds: config.IDEMPOTENCY_LOCK_SECONDS,
    ipv6LimitPrefix: config.IPV6_LIMIT_PREFIX,
    consentLimits: {
      principalsPerAddressPerDay: config.CONSENT_PRINCIPALS_PER_ADDRESS_PER_DAY,
      codesPerAddressPerDay: config.CONSENT_CODES_PER_ADDRESS_PER_DAY,
      wrongCodesPerAddressPerDay: config.CONSENT_WRONG_CODES_PER_ADDRESS_PER_DAY,
    },
  });
  let ports;
  try {
    ports = await listenWithAdmin(app, metrics, {
      port: config.IDENTITY_PORT,
      adminPort: config.IDENTITY_ADMIN_PORT,
      host: config.BIND_ADDRESS,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      logger,
    });
  } catch (err) {
    await consentMailer.close();
    queueRedis.disconnect();
    if (!deps.redis) redis.disconnect();
    throw err;
  }
  const { main, admin, close } = ports;
  return {
    url: main.url,
    port: main.port,
    adminUrl: admin.url,
    async close() {
      await close();
      await consentMailer.close();
      await queueRedis.quit().catch(() => queueRedis.disconnect());
      if (!deps.redis) await redis.quit();
    },
  };
}
