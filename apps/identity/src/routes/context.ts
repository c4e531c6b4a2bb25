import type { Logger, Metrics } from '@msa/service-kit';
import type { TokenKeys } from '../domain/token-keys.js';
import type { CredentialStore } from '../store/credential-store.js';
import type { CredentialQuota } from './credential-quota.js';
import type { OAuthStore } from '../oauth/store/oauth-store.js';

/** What the route handlers outside the OAuth feature share. */
export interface RouteDeps {
  store: CredentialStore;
  quota: CredentialQuota;
  tokenKeys: TokenKeys;
  /** The authorization code grant's clients, codes and grants. */
  oauth: OAuthStore;
  /** The key a per-address limit counts a client address under (IPv6 by prefix). */
  addressKey: (ip: string) => string;
  publicBaseUrl: string;
  logger: Logger;
  counters: IdentityCounters;
}

type Counter = ReturnType<Metrics['counter']>;

export interface IdentityCounters {
  credentialsCreated: Pick<Counter, 'inc'>;
  tokensIssued: Pick<Counter, 'inc'>;
  tokenRefusals: Pick<Counter, 'inc'>;
}

export function createIdentityCounters(metrics: Metrics | undefined): IdentityCounters {
  const none = { inc: () => undefined };
  if (!metrics) return { credentialsCreated: none, tokensIssued: none, tokenRefusals: none };
  return {
    credentialsCreated: metrics.counter('identity_credentials_created_total', 'Credentials created', ['origin', 'mode']),
    tokensIssued: metrics.counter('identity_access_tokens_issued_total', 'Access tokens issued', ['auth_method']),
    tokenRefusals: metrics.counter('identity_token_requests_refused_total', 'Token requests refused', ['code']),
  };
}
