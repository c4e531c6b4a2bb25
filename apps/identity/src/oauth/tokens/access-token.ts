import { randomUUID } from 'node:crypto';
import { LIMITS, type AccessTokenClaims, type Mode, type Scope } from '@msa/contracts';
import { jsonwebtoken } from '@msa/service-kit';
import { formatScopes } from '../rules/scopes.js';
import type { TokenKeys } from '../../domain/token-keys.js';

export interface AccessTokenInput {
  clientId: string;
  name: string;
  scopes: Scope[];
  mode: Mode;
  tier: string;
  /** Issued on the sandbox path: the token is a sandbox token whatever the client's mode. */
  sandbox: boolean;
  /** The `aud`: the RFC 8707 resource the client named, else the base URL. */
  audience: string;
  /**
   * The authorization code grant: the person (`sub`), their confirmed address
   * (none for the sandbox without an e-mail), the client's name and the grant.
   */
  person?: { id: string; email?: string | undefined; clientName: string; grantId: string };
}

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scope: string;
}

export function issuerFor(publicBaseUrl: string, sandbox: boolean): string {
  return sandbox ? `${publicBaseUrl}/sandbox` : publicBaseUrl;
}

export function signAccessToken(keys: TokenKeys, publicBaseUrl: string, input: AccessTokenInput): IssuedToken {
  const expiresIn = LIMITS.accessTokenLifetimeSeconds;
  const scope = formatScopes(input.scopes);
  const claims: Omit<AccessTokenClaims, 'sub'> = {
    // RFC 9068 §2.2: client_id even where it equals sub, as in client credentials.
    client_id: input.clientId,
    scope,
    name: input.name,
    mode: input.sandbox ? 'sandbox' : input.mode,
    tier: input.tier,
    ...(input.person?.email !== undefined ? { email: input.person.email } : {}),
    ...(input.person ? { client_name: input.person.clientName, grant: input.person.grantId } : {}),
  };
  // Loaded on the first token issued: most callers use API keys.
  const accessToken = jsonwebtoken().sign(claims, keys.privateKey, {
    algorithm: 'ES256',
    keyid: keys.kid,
    // RFC 9068 §2.1: the type tells an access token from an ID token or other JWTs signed with the same key.
    header: { alg: 'ES256', typ: 'at+jwt' },
    expiresIn,
    issuer: issuerFor(publicBaseUrl, input.sandbox),
    audience: input.audience,
    subject: input.person?.id ?? input.clientId,
    jwtid: randomUUID(),
  });
  return { accessToken, expiresIn, scope };
}
