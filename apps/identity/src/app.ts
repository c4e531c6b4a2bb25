import { LIMITS } from '@msa/contracts';
import { createServiceApp, finishServiceApp, type Logger, type Metrics, type RedisClient } from '@msa/service-kit';
import { createBackoffLimiter } from '@msa/service-kit/limits';
import type { Express } from 'express';
import { createReplaySeal } from './domain/replay-seal.js';
import { signingKeyMaterial, type TokenKeys } from './domain/token-keys.js';
import { createIdentityCounters, type RouteDeps } from './routes/context.js';
import { createCredentialQuota } from './routes/credential-quota.js';
import { introspectRoutes } from './routes/introspect.js';
import { keyRoutes } from './routes/keys.js';
import { meRoutes } from './routes/me.js';
import { oauthRoutes } from './routes/oauth.js';
import { wellKnownRoutes } from './routes/well-known.js';
import { createCredentialStore } from './store/credential-store.js';

export interface AppDeps {
  logger: Logger;
  redis: RedisClient;
  /** REDIS_KEY_PREFIX; tests pass one of their own. */
  keyPrefix: string;
  publicBaseUrl: string;
  internalAuthSecret: string;
  tokenKeys: TokenKeys;
  metrics?: Metrics;
  /** IDEMPOTENCY_LOCK_SECONDS of POST /v1/keys. */
  idempotencyLockSeconds?: number;
}

export function createApp({ logger, redis, keyPrefix, publicBaseUrl, internalAuthSecret, tokenKeys, metrics, idempotencyLockSeconds }: AppDeps): Express {
  const store = createCredentialStore(redis, keyPrefix);
  const deps: RouteDeps = {
    store,
    quota: createCredentialQuota(redis, keyPrefix),
    tokenFailures: createBackoffLimiter({
      redis,
      keyPrefix: `${keyPrefix}oauth-client-fail`,
      policy: 'client-auth-failures',
      freeFailures: LIMITS.tokenFailuresBeforeBackoff,
      baseBlockSeconds: LIMITS.tokenBackoffBaseSeconds,
      maxBlockSeconds: LIMITS.tokenBackoffMaxSeconds,
      memorySeconds: LIMITS.tokenFailureMemorySeconds,
    }),
    tokenKeys,
    publicBaseUrl,
    logger,
    counters: createIdentityCounters(metrics),
  };
  const app = createServiceApp({
    service: 'identity',
    logger,
    publicBaseUrl,
    internalAuthSecret,
    ready: () => store.ping(),
    metrics,
    // The token endpoint takes application/x-www-form-urlencoded (RFC 6749 §4.4.2).
    formBodies: true,
  });
  app.use(
    keyRoutes(deps, {
      redis,
      keyPrefix,
      bodyCodec: createReplaySeal(signingKeyMaterial(tokenKeys)),
      ...(idempotencyLockSeconds ? { lockSeconds: idempotencyLockSeconds } : {}),
    }),
  );
  app.use(oauthRoutes(deps));
  app.use(meRoutes(deps));
  app.use(wellKnownRoutes(deps));
  app.use(introspectRoutes(deps));
  return finishServiceApp(app, { logger, publicBaseUrl });
}
