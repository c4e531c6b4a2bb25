// What the OAuth feature's controllers share. The feature reads the
// credentials of POST /v1/keys only through `credentials`, which app.ts
// builds from the credential store.
import type { Mode, Scope } from '@msa/contracts';
import type { Logger } from '@msa/service-kit';
import type { Reservation, WindowLimiter } from '@msa/service-kit/limits';
import type { Request, Response } from 'express';
import type { ClientDirectory } from './clients/client-directory.js';
import type { TokenGrants } from './grants/token-grants.js';
import type { OAuthStore } from './store/oauth-store.js';
import type { ConsentDeps } from './use-cases/consent-deps.js';

/** A counter as the feature uses it: incremented with its labels. */
export interface Counter {
  inc(labels: Record<string, string>): void;
}

export interface OAuthCounters {
  credentialsCreated: Counter;
  tokensIssued: Counter;
  tokenRefusals: Counter;
}

/** Credentials a confidential client registers (RFC 7591), the same as POST /v1/keys makes. */
export interface RegisteredCredentials {
  clientId: string;
  clientSecret: string;
  apiKey: string;
  record: { created_at: string; name: string; scopes: Scope[]; mode: Mode };
}

export interface CredentialRegistry {
  /** Reserves one creation of the caller's address for the day (shared with POST /v1/keys), or throws the 429. */
  reserve(req: Request, res: Response): Promise<Reservation>;
  create(input: { name: string; email: string; scopes: Scope[]; mode: Mode; tokenEndpointAuthMethod: 'client_secret_basic' | 'client_secret_post' }): Promise<RegisteredCredentials>;
}

export interface OAuthDeps extends ConsentDeps {
  store: OAuthStore;
  clients: ClientDirectory;
  grants: TokenGrants;
  credentials: CredentialRegistry;
  /** Public client registrations per client IP per day, counted apart from credentials. */
  publicClientQuota: WindowLimiter;
  /** The key a per-address limit counts a client address under (IPv6 by prefix). */
  addressKey: (ip: string) => string;
  publicBaseUrl: string;
  logger: Logger;
  counters: OAuthCounters;
}
