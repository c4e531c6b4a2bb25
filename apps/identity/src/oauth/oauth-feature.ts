// Builds the OAuth feature from the app's collaborators: the client
// directory with its metadata resolver, the grants, the consent page's counts
// and the token endpoint's back-off, and the router over them.
import { LIMITS } from '@msa/contracts';
import type { Logger, RedisClient } from '@msa/service-kit';
import { createBackoffLimiter, createDailyQuota, createWindowLimiter } from '@msa/service-kit/limits';
import { createAddressPolicy } from '@msa/service-kit/public-fetch';
import type { Router } from 'express';
import type { TokenKeys } from '../domain/token-keys.js';
import { createClientDirectory } from './clients/client-directory.js';
import { createClientMetadataResolver, type ClientMetadataLimits } from './clients/client-metadata-resolver.js';
import { CONSENT_DEFAULTS, type ConsentLimits } from './consent-limits.js';
import type { ConfidentialClient } from './grants/client-credentials.js';
import { createTokenGrants } from './grants/token-grants.js';
import type { CredentialRegistry, OAuthCounters } from './oauth-deps.js';
import { oauthRouter } from './oauth-router.js';
import type { ConsentMailer } from './queue/consent-mailer.js';
import type { OAuthStore } from './store/oauth-store.js';
import type { ConsentCounts } from './use-cases/consent-deps.js';

export interface OAuthFeatureOptions {
  redis: RedisClient;
  keyPrefix: string;
  publicBaseUrl: string;
  tokenKeys: TokenKeys;
  logger: Logger;
  counters: OAuthCounters;
  /** The OAuth store, as the app files it (its grants indexed per person). */
  store: OAuthStore;
  /** The credentials of POST /v1/keys: read by the client credentials grant, made by registration. */
  credentials: CredentialRegistry & { findByClientId(clientId: string): Promise<ConfidentialClient | null> };
  mailer: ConsentMailer;
  addressKey: (ip: string) => string;
  /** CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS. */
  clientMetadataAllowPrivate?: boolean | undefined;
  clientMetadataLimits?: Partial<ClientMetadataLimits> | undefined;
  /** OAUTH_VERIFIED_CLIENT_HOSTS. */
  verifiedClientHosts?: readonly string[] | undefined;
  consentLimits?: Partial<ConsentLimits> | undefined;
  refreshReuseGraceSeconds?: number | undefined;
}

function createClients(opts: OAuthFeatureOptions) {
  const allowPrivate = opts.clientMetadataAllowPrivate ?? false;
  const verifiedHosts = new Set((opts.verifiedClientHosts ?? []).map((h) => h.toLowerCase()));
  const resolver = createClientMetadataResolver({
    redis: opts.redis,
    keyPrefix: opts.keyPrefix,
    policy: createAddressPolicy({ allowPrivate }),
    allowHttpLoopback: allowPrivate,
    ...(opts.clientMetadataLimits ? { limits: opts.clientMetadataLimits } : {}),
    verifiedHosts,
  });
  return createClientDirectory(opts.store, resolver, { allowHttpLoopback: allowPrivate, verifiedHosts });
}

function createConsentCounts({ redis, keyPrefix, consentLimits }: OAuthFeatureOptions): ConsentCounts {
  const consent = { ...CONSENT_DEFAULTS, ...consentLimits };
  const hourly = (name: string, points: number) => createWindowLimiter({ redis, keyPrefix: `${keyPrefix}${name}`, policy: name, points, windowSeconds: 3600 });
  const daily = (name: string, points: number) => createDailyQuota({ redis, keyPrefix: `${keyPrefix}quota:${name}`, policy: `${name}-day`, points });
  return {
    mailsPerAddress: hourly('consent-mail-address', consent.codesPerAddressPerHour),
    mailsPerAddressPerDay: daily('consent-codes', consent.codesPerAddressPerDay),
    mailsPerIp: hourly('consent-mail-ip', LIMITS.consentMailsPerIpPerHour),
    peoplePerIp: daily('consent-principals', consent.principalsPerAddressPerDay),
    wrongCodesPerAddressPerDay: consent.wrongCodesPerAddressPerDay,
  };
}

function createGrants(opts: OAuthFeatureOptions) {
  const { redis, keyPrefix } = opts;
  const clientFailures = createBackoffLimiter({
    redis,
    keyPrefix: `${keyPrefix}oauth-client-fail`,
    policy: 'client-auth-failures',
    freeFailures: LIMITS.tokenFailuresBeforeBackoff,
    baseBlockSeconds: LIMITS.tokenBackoffBaseSeconds,
    maxBlockSeconds: LIMITS.tokenBackoffMaxSeconds,
    memorySeconds: LIMITS.tokenFailureMemorySeconds,
  });
  return createTokenGrants({
    store: opts.store,
    tokenKeys: opts.tokenKeys,
    publicBaseUrl: opts.publicBaseUrl,
    refreshReuseGraceSeconds: opts.refreshReuseGraceSeconds,
    findClient: (clientId) => opts.credentials.findByClientId(clientId),
    clientFailures,
  });
}

/** The feature's router, ready to mount. */
export function createOAuthFeature(opts: OAuthFeatureOptions): Router {
  const publicClientQuota = createWindowLimiter({
    redis: opts.redis,
    keyPrefix: `${opts.keyPrefix}quota:public-clients`,
    policy: 'public-clients-day',
    points: LIMITS.publicClientRegistrationsPerIpPerDay,
    windowSeconds: 86_400,
  });
  return oauthRouter({
    store: opts.store,
    mailer: opts.mailer,
    counts: createConsentCounts(opts),
    clients: createClients(opts),
    grants: createGrants(opts),
    credentials: opts.credentials,
    publicClientQuota,
    addressKey: opts.addressKey,
    publicBaseUrl: opts.publicBaseUrl,
    logger: opts.logger,
    counters: opts.counters,
  });
}
