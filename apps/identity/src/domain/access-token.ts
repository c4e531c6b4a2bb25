import { randomUUID } from 'node:crypto';
import { LIMITS, type AccessTokenClaims, type Mode, type Scope } from '@msa/contracts';
import jwt from 'jsonwebtoken';
import { formatScopes } from './scopes.js';
import type { TokenKeys } from './token-keys.js';

export interface AccessTokenInput {
  clientId: string;
  name: string;
  scopes: Scope[];
  mode: Mode;
  tier: string;
  /** Issued on the sandbox path: the token is a sandbox token whatever the client's mode. */
  sandbox: boolean;
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
    scope,
    name: input.name,
    mode: input.sandbox ? 'sandbox' : input.mode,
    tier: input.tier,
  };
  const accessToken = jwt.sign(claims, keys.privateKey, {
    algorithm: 'ES256',
    keyid: keys.kid,
    expiresIn,
    issuer: issuerFor(publicBaseUrl, input.sandbox),
    audience: publicBaseUrl,
    subject: input.clientId,
    jwtid: randomUUID(),
  });
  return { accessToken, expiresIn, scope };
}
