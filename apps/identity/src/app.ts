import { LIMITS, type RequestsClient } from '@msa/contracts';
import type { Queue } from 'bullmq';
import { createServiceApp, finishServiceApp, limitKeyOfAddress, type Logger, type Metrics, type RedisClient } from '@msa/service-kit';
import { createBackoffLimiter, createDailyQuota, createWindowLimiter } from '@msa/service-kit/limits';
import { createAddressPolicy } from '@msa/service-kit/public-fetch';
import type { Express } from 'express';
import { createReplaySeal } from './domain/replay-seal.js';
import { signingKeyMaterial, type TokenKeys } from './domain/token-keys.js';
import { createIdentityCounters, type RouteDeps } from './routes/context.js';
import { createCredentialQuota } from './routes/credential-quota.js';
import { introspectRoutes } from './routes/introspect.js';
import { keyRoutes } from './routes/keys.js';
import { meRoutes } from './routes/me.js';
import { oauthRoutes } from './routes/oauth.js';
import { portalKeyRoutes } from './routes/portal-keys.js';
import { wellKnownRoutes } from './routes/well-known.js';
import { createCredentialStore } from './store/credential-store.js';
import { authorizeRoutes } from './oauth/authorize-routes.js';
import { createClientMetadataResolver, type ClientMetadataLimits } from './oauth/client-metadata.js';
import { createClientDirectory } from './oauth/clients.js';
import { CONSENT_DEFAULTS, type ConsentLimits } from './oauth/consent-limits.js';
import type { ConsentMailer } from './oauth/consent-mail.js';
import { createOAuthStore } from './oauth/oauth-store.js';
import { createTokenGrants } from './oauth/token-grants.js';
import { grantStatusRoutes } from './routes/grant-status.js';
import { createConsentMailDrop } from './privacy/consent-mail-drop.js';
import { indexCredentials, indexGrants } from './privacy/indexing.js';
import { privacyRoutes } from './privacy/privacy-routes.js';
import { createPrivacyStore } from './privacy/store/privacy-store.js';

/** What `/v1/me/data` needs beyond identity's own stores. */
export interface PrivacyDeps {
  /** The requests service (REQUESTS_URL): a person's shop requests and their copies. */
  requests: Pick<RequestsClient, 'findPersonalShopRequests' | 'erasePersonalShopRequests'>;
  /** The `mail` queue the consent codes wait on, to drop those to an erased address. */
  mailQueue: Queue;
}

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
  /** Sends the consent page's one-time codes (the `mail` queue). */
  consentMailer: ConsentMailer;
  /** CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: metadata documents on loopback or private addresses, over http too. */
  clientMetadataAllowPrivate?: boolean;
  /** The CLIENT_METADATA_* caps on document fetches; defaults where left out. */
  clientMetadataLimits?: Partial<ClientMetadataLimits>;
  /** OAUTH_VERIFIED_CLIENT_HOSTS: the only clients whose errors before consent are redirected. */
  verifiedClientHosts?: readonly string[];
  /** IPV6_LIMIT_PREFIX: per-address limits count an IPv6 client by this prefix length (default 64). */
  ipv6LimitPrefix?: number;
  /** The CONSENT_* counts of people and codes; defaults where left out. */
  consentLimits?: Partial<ConsentLimits>;
  /** Serves GET and DELETE /v1/me/data; without it they are not served. */
  privacy?: PrivacyDeps;
  /** REFRESH_REUSE_GRACE_SECONDS (default 30). */
  refreshReuseGraceSeconds?: number;
}

export function createApp(appDeps: AppDeps): Express {
  const { logger, redis, keyPrefix, publicBaseUrl, internalAuthSecret, tokenKeys, metrics, idempotencyLockSeconds } = appDeps;
  // Credentials and grants are filed under their person's mailbox as they are stored (the rights of access and erasure).
  const privacyStore = createPrivacyStore(redis, keyPrefix, internalAuthSecret);
  const store = indexCredentials(createCredentialStore(redis, keyPrefix), privacyStore);
  const oauth = indexGrants(createOAuthStore(redis, keyPrefix), privacyStore);
  const allowPrivate = appDeps.clientMetadataAllowPrivate ?? false;
  const verifiedHosts = new Set((appDeps.verifiedClientHosts ?? []).map((h) => h.toLowerCase()));
  const clients = createClientDirectory(
    oauth,
    createClientMetadataResolver({
      redis,
      keyPrefix,
      policy: createAddressPolicy({ allowPrivate }),
      allowHttpLoopback: allowPrivate,
      ...(appDeps.clientMetadataLimits ? { limits: appDeps.clientMetadataLimits } : {}),
      verifiedHosts,
    }),
    { allowHttpLoopback: allowPrivate, verifiedHosts },
  );
  const addressKey = (ip: string) => limitKeyOfAddress(ip, { ipv6Prefix: appDeps.ipv6LimitPrefix });
  const hourly = (name: string, points: number) =>
    createWindowLimiter({ redis, keyPrefix: `${keyPrefix}${name}`, policy: name, points, windowSeconds: 3600 });
  const daily = (name: string, points: number) => createDailyQuota({ redis, keyPrefix: `${keyPrefix}quota:${name}`, policy: `${name}-day`, points });
  const consent = { ...CONSENT_DEFAULTS, ...appDeps.consentLimits };
  const deps: RouteDeps = {
    oauth,
    grants: createTokenGrants({ store: oauth, tokenKeys, publicBaseUrl, refreshReuseGraceSeconds: appDeps.refreshReuseGraceSeconds }),
    publicClientQuota: createWindowLimiter({
      redis,
      keyPrefix: `${keyPrefix}quota:public-clients`,
      policy: 'public-clients-day',
      points: LIMITS.publicClientRegistrationsPerIpPerDay,
      windowSeconds: 86_400,
    }),
    addressKey,
    store,
    quota: createCredentialQuota(redis, keyPrefix, addressKey),
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
  app.use(portalKeyRoutes(deps));
  app.use(oauthRoutes(deps));
  app.use(
    authorizeRoutes({
      store: oauth,
      clients,
      mailer: appDeps.consentMailer,
      mailsPerAddress: hourly('consent-mail-address', consent.codesPerAddressPerHour),
      mailsPerAddressPerDay: daily('consent-codes', consent.codesPerAddressPerDay),
      mailsPerIp: hourly('consent-mail-ip', LIMITS.consentMailsPerIpPerHour),
      peoplePerIp: daily('consent-principals', consent.principalsPerAddressPerDay),
      wrongCodesPerAddressPerDay: consent.wrongCodesPerAddressPerDay,
      addressKey,
      publicBaseUrl,
      logger,
    }),
  );
  app.use(grantStatusRoutes(deps));
  if (appDeps.privacy) {
    app.use(
      privacyRoutes({
        oauth,
        credentials: store,
        privacy: privacyStore,
        requests: appDeps.privacy.requests,
        dropConsentMails: createConsentMailDrop(appDeps.privacy.mailQueue, internalAuthSecret),
        publicBaseUrl,
      }),
    );
  }
  app.use(meRoutes(deps));
  app.use(wellKnownRoutes(deps));
  app.use(introspectRoutes(deps));
  return finishServiceApp(app, { logger, publicBaseUrl });
}
