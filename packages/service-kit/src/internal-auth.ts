import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { CallContext, INTERNAL_AUTH_HEADER, type InternalSigner, type ServiceName } from '@msa/contracts';
import type { RequestHandler } from 'express';
import { appError } from './errors.js';
import { jsonwebtoken } from './lazy-jsonwebtoken.js';

const TTL_SECONDS = 60;
const ISSUER = 'msa-internal';
/** The header jsonwebtoken writes for HS256, so tokens look the same whoever signed them. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
/** Verified tokens remembered per secret; a token is reused for at most its 60 s. */
const VERIFIED_CACHE_MAX = 1_000;

interface Verified {
  token: string;
  audience: unknown;
  exp: number;
  ctx: CallContext;
}

interface SecretState {
  key: KeyObject;
  verified: Map<string, Verified>;
}

// A secret KeyObject made once: jsonwebtoken first tries to read a string
// secret as a PEM key (~0.4 ms per call), and node:crypto HMAC takes it as is.
const secrets = new Map<string, SecretState>();
function stateOf(secret: string): SecretState {
  let state = secrets.get(secret);
  if (!state) {
    state = { key: createSecretKey(Buffer.from(secret, 'utf8')), verified: new Map() };
    secrets.set(secret, state);
  }
  return state;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function hmac(key: KeyObject, signingInput: string): Buffer {
  return createHmac('sha256', key).update(signingInput).digest();
}

/**
 * Signs `X-Internal-Auth` tokens: HS256 JWTs that live 60 s, audience = the
 * called service. Built with node:crypto rather than jsonwebtoken (one per
 * proxied request); any JWT library verifies them.
 */
export function createInternalSigner(secret: string): InternalSigner {
  const { key } = stateOf(secret);
  return (audience: ServiceName, ctx: CallContext) => {
    const iat = nowSeconds();
    const claims = `{"ctx":${JSON.stringify(ctx)},"iat":${iat},"exp":${iat + TTL_SECONDS},"aud":${JSON.stringify(audience)},"iss":"${ISSUER}"}`;
    const signingInput = `${HEADER}.${Buffer.from(claims).toString('base64url')}`;
    return `${signingInput}.${hmac(key, signingInput).toString('base64url')}`;
  };
}

/** The context of a verified payload, or null when its shape is wrong. */
function contextOf(payload: unknown): CallContext | null {
  if (payload === null || typeof payload !== 'object') return null;
  const parsed = CallContext.safeParse((payload as { ctx?: unknown }).ctx);
  return parsed.success ? parsed.data : null;
}

function verifyWithJsonwebtoken(key: KeyObject, audience: ServiceName, token: string): CallContext | null {
  try {
    return contextOf(jsonwebtoken().verify(token, key, { algorithms: ['HS256'], audience, issuer: ISSUER }));
  } catch {
    return null;
  }
}

/**
 * Verifies a token for `audience`; returns the context or null.
 *
 * A token in the form our signer writes is checked with one HMAC and the
 * claims it carries; any other form (another header, unusual claims) goes
 * through jsonwebtoken, so the rules stay jsonwebtoken's. A verified token is
 * remembered by its signature until it expires: a caller that reuses its
 * token pays for the HMAC and the context's parse once.
 */
export function verifyInternalToken(secret: string, audience: ServiceName, token: string): CallContext | null {
  const { key, verified } = stateOf(secret);
  const dot2 = token.lastIndexOf('.');
  const signature = token.slice(dot2 + 1);
  const now = nowSeconds();

  const hit = verified.get(signature);
  if (hit) {
    if (hit.token === token && now < hit.exp) return hit.audience === audience ? hit.ctx : null;
    if (now >= hit.exp) verified.delete(signature);
  }

  const dot1 = token.indexOf('.');
  if (dot1 !== HEADER.length || !token.startsWith(HEADER) || dot2 === dot1) return verifyWithJsonwebtoken(key, audience, token);
  const given = Buffer.from(signature, 'base64url');
  const expected = hmac(key, token.slice(0, dot2));
  // base64url decoding skips stray characters; the re-encoding must match too.
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || given.toString('base64url') !== signature) return null;

  let claims: { exp?: unknown; iat?: unknown; nbf?: unknown; aud?: unknown; iss?: unknown; ctx?: unknown };
  try {
    claims = JSON.parse(Buffer.from(token.slice(dot1 + 1, dot2), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (claims === null || typeof claims !== 'object') return null;
  const usual = typeof claims.exp === 'number' && typeof claims.iat === 'number' && claims.nbf === undefined && typeof claims.aud === 'string';
  if (!usual) return verifyWithJsonwebtoken(key, audience, token);
  const exp = claims.exp as number;
  if (now >= exp || claims.iss !== ISSUER) return null;
  const ctx = contextOf(claims);
  if (!ctx) return null;
  if (verified.size >= VERIFIED_CACHE_MAX) verified.delete(verified.keys().next().value!);
  verified.set(signature, { token, audience: claims.aud, exp, ctx });
  return claims.aud === audience ? ctx : null;
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
