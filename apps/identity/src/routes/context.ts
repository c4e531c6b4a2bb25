import type { Logger, Metrics } from '@msa/service-kit';
import type { BackoffLimiter } from '@msa/service-kit/limits';
import type { TokenKeys } from '../domain/token-keys.js';
import type { CredentialStore } from '../store/credential-store.js';
import type { CredentialQuota } from './credential-quota.js';
import type { WindowLimiter } from '@msa/service-kit/limits';
import type { OAuthStore } from '../oauth/oauth-store.js';
import type { TokenGrants } from '../oauth/token-grants.js';

/** What the route handlers share. */
export interface RouteDeps {
  store: CredentialStore;
  quota: CredentialQuota;
  /** Wrong client secrets per client_id at /oauth/token, with exponential back-off. */
  tokenFailures: BackoffLimiter;
  tokenKeys: TokenKeys;
  /** The authorization code grant's clients, codes and grants. */
  oauth: OAuthStore;
  grants: TokenGrants;
  /** Public client registrations per client IP per day, counted apart from credentials. */
  publicClientQuota: WindowLimiter;
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
