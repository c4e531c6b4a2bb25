import { createSecretKey, type KeyObject } from 'node:crypto';
import { CallContext, INTERNAL_AUTH_HEADER, type InternalSigner, type ServiceName } from '@msa/contracts';
import type { RequestHandler } from 'express';
import jwt from 'jsonwebtoken';
import { appError } from './errors.js';

const TTL_SECONDS = 60;
const ISSUER = 'msa-internal';

// jsonwebtoken first tries to read a string secret as a PEM key, and that
// failed attempt costs ~0.4 ms per call; a secret KeyObject made once skips it.
const secretKeys = new Map<string, KeyObject>();
function secretKey(secret: string): KeyObject {
  let key = secretKeys.get(secret);
  if (!key) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    secretKeys.set(secret, key);
  }
  return key;
}

/** Signs `X-Internal-Auth` tokens: HS256, 60 s, audience = the called service. */
export function createInternalSigner(secret: string): InternalSigner {
  const key = secretKey(secret);
  return (audience: ServiceName, ctx: CallContext) =>
    jwt.sign({ ctx }, key, { algorithm: 'HS256', expiresIn: TTL_SECONDS, audience, issuer: ISSUER });
}

/** Verifies a token for `audience`; returns the context or null. */
export function verifyInternalToken(secret: string, audience: ServiceName, token: string): CallContext | null {
  try {
    const payload = jwt.verify(token, secretKey(secret), { algorithms: ['HS256'], audience, issuer: ISSUER });
    if (typeof payload === 'string') return null;
    const parsed = CallContext.safeParse((payload as { ctx?: unknown }).ctx);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Rejects any call that did not come through the gateway (or another
 * service) with a valid `X-Internal-Auth` for this service, and puts the
 * caller's context on `req.ctx`.
 */
export function internalAuth(secret: string, audience: ServiceName): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers[INTERNAL_AUTH_HEADER];
    const ctx = typeof header === 'string' ? verifyInternalToken(secret, audience, header) : null;
    if (!ctx) {
      return next(appError('unauthorized', 'Internal authentication is missing or invalid.', {
        hint: 'Call this API through its public gateway.',
      }));
    }
    req.ctx = ctx;
    next();
  };
}
