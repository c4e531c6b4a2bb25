import type { RequestsClient } from '@msa/contracts';
import type { Queue } from 'bullmq';
import { createServiceApp, finishServiceApp, limitKeyOfAddress, type Logger, type Metrics, type RedisClient } from '@msa/service-kit';
import type { Express } from 'express';
import { createCredentials } from './domain/create-credentials.js';
import { createReplaySeal } from './domain/replay-seal.js';
import { signingKeyMaterial, type TokenKeys } from './domain/token-keys.js';
import { createIdentityCounters, type RouteDeps } from './routes/context.js';
import { createCredentialQuota } from './routes/credential-quota.js';
import { introspectRoutes } from './routes/introspect.js';
import { keyRoutes } from './routes/keys.js';
import { meRoutes } from './routes/me.js';
import { portalKeyRoutes } from './routes/portal-keys.js';
import { wellKnownRoutes } from './routes/well-known.js';
import { createCredentialStore } from './store/credential-store.js';
import type { ClientMetadataLimits } from './oauth/clients/client-metadata-resolver.js';
import type { ConsentLimits } from './oauth/consent-limits.js';
import { createOAuthFeature } from './oauth/oauth-feature.js';
import type { ConsentMailer } from './oauth/queue/consent-mailer.js';
import { createOAuthStore } from './oauth/store/oauth-store.js';
import { grantStatusRoutes } from './routes/grant-status.js';
import { createConsentMailDrop } from './privacy/consent-mail-drop.js';
import { indexCredentials, indexGrants } from './privacy/indexing.js';
import { privacyRoutes } from './privacy/privacy-routes.js';
import { createPrivacyStore } from './privacy/store/privacy-store.js';

/** What `/v1/me/data` needs beyond identity's own stores. */
export interface PrivacyDeps {
  /** The requests service (REQUESTS_URL): a person's shop requests and their copies. */
  requests: Pick<RequestsClient, 'findPersonalShopRequests' | 'erasePersonalShopRequests'>;
  /** The `mail` queue the consent codes wait on (made on first use), to drop those to an erased address. */
  mailQueue: () => Promise<Queue>;
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

/** The credential and OAuth stores, each filed under its person's mailbox as it stores (the rights of access and erasure). */
function createStores({ redis, keyPrefix, internalAuthSecret }: AppDeps) {
  const privacy = createPrivacyStore(redis, keyPrefix, internalAuthSecret);
  return {
    privacy,
    credentials: indexCredentials(createCredentialStore(redis, keyPrefix), privacy),
    oauth: indexGrants(createOAuthStore(redis, keyPrefix), privacy),
  };
}

type Stores = ReturnType<typeof createStores>;

/** The OAuth front door, reading and making credentials through the credential store. */
function oauthFeature(appDeps: AppDeps, stores: Stores, deps: RouteDeps) {
  return createOAuthFeature({
    ...appDeps,
    store: stores.oauth,
    mailer: appDeps.consentMailer,
    counters: deps.counters,
    addressKey: deps.addressKey,
    credentials: {
      findByClientId: (clientId) => stores.credentials.findByClientId(clientId),
      reserve: (req, res) => deps.quota.reserve(req, res),
      create: (input) => createCredentials(stores.credentials, { ...input, origin: 'registration' }),
    },
  });
}

function privacyFeature(privacy: PrivacyDeps, stores: Stores, { internalAuthSecret, publicBaseUrl }: AppDeps) {
  return privacyRoutes({
    oauth: stores.oauth,
    credentials: stores.credentials,
    privacy: stores.privacy,
    requests: privacy.requests,
    dropConsentMails: createConsentMailDrop(privacy.mailQueue, internalAuthSecret),
    publicBaseUrl,
  });
}

export function createApp(appDeps: AppDeps): Express {
  const { logger, redis, keyPrefix, publicBaseUrl, internalAuthSecret, tokenKeys, metrics, idempotencyLockSeconds } = appDeps;
  const stores = createStores(appDeps);
  const addressKey = (ip: string) => limitKeyOfAddress(ip, { ipv6Prefix: appDeps.ipv6LimitPrefix });
  const deps: RouteDeps = {
    oauth: stores.oauth,
    addressKey,
    store: stores.credentials,
    quota: createCredentialQuota(redis, keyPrefix, addressKey),
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
    ready: () => stores.credentials.ping(),
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
  app.use(oauthFeature(appDeps, stores, deps));
  app.use(grantStatusRoutes(deps));
  if (appDeps.privacy) app.use(privacyFeature(appDeps.privacy, stores, appDeps));
  app.use(meRoutes(deps));
  app.use(wellKnownRoutes(deps));
  app.use(introspectRoutes(deps));
  return finishServiceApp(app, { logger, publicBaseUrl });
}
