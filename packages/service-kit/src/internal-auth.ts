// @module `createInternalSigner(secret)` → `(audience, ctx) => jwt` (HS256, 60 s, audience = the called service); `internalAuth(secret, service)` middleware → `req.ctx: CallContext` or 401
// X-Internal-Auth: how a service knows a call came through the gateway (or
// another service) and on whose behalf. The token signs what stays the same
// across a principal's requests (principal, sandbox, client address,
// audience), so a signer hands out one token per context for most of its
// lifetime and a service verifies each token once. The request id and the
// trace travel in their own headers (docs/decisions/internal-auth.md).
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import {
  INTERNAL_AUTH_HEADER,
  INTERNAL_CONTEXT_VERSION,
  SignedCallContext,
  type CallContext,
  type InternalSigner,
  type ServiceName,
} from '@msa/contracts';
import type { RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import { appError } from './errors.js';
import { jsonwebtoken } from './lazy-jsonwebtoken.js';
import { declareRequestFields } from './request-shape.js';
import { callContextOf } from './request-context.js';

/** How long a token lives. */
export const INTERNAL_TOKEN_TTL_SECONDS = 60;
/**
 * How long a signer hands out the same token. A reused token still has at
 * least 14 s to live when it leaves (`iat` is whole seconds), which covers
 * the hop and clocks a few seconds apart.
 */
const REUSE_SECONDS = 45;
const ISSUER = 'msa-internal';
/** The header jsonwebtoken writes for HS256, so tokens look the same whoever signed them. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
/** Verified tokens remembered per secret, each until it expires. */
const VERIFIED_CACHE_MAX = 1_000;
/** Signed tokens a signer keeps for reuse: one per audience and signed context. */
const SIGNED_CACHE_MAX = 10_000;

interface Verified {
  token: string;
  audience: unknown;
  ctx: SignedCallContext;
}

interface SecretState {
  key: KeyObject;
  verified: LRUCache<string, Verified>;
}

// A secret KeyObject made once: jsonwebtoken first tries to read a string
// secret as a PEM key (~0.4 ms per call), and node:crypto HMAC takes it as is.
const secrets = new Map<string, SecretState>();
function stateOf(secret: string): SecretState {
  let state = secrets.get(secret);
  if (!state) {
    state = {
      key: createSecretKey(Buffer.from(secret, 'utf8')),
      verified: new LRUCache({ max: VERIFIED_CACHE_MAX, ttl: INTERNAL_TOKEN_TTL_SECONDS * 1000 }),
    };
    secrets.set(secret, state);
  }
  return state;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

function hmac(key: KeyObject, signingInput: string): Buffer {
  return createHmac('sha256', key).update(signingInput).digest();
}

/**
 * The `ctx` claim for a call context, fields in a fixed order so equal
 * contexts give equal text (and share a token).
 *
 * `request_id` is written empty on purpose: services of the previous release
 * require the field, and an empty one lets them accept this release's tokens
 * during a rolling upgrade without binding a token to one request. Services
 * of this release ignore it. Drop it once no previous-release service runs.
 */
function signedContextJson(ctx: Pick<CallContext, 'principal' | 'sandbox' | 'ip'>): string {
  return `{"version":${INTERNAL_CONTEXT_VERSION},"principal":${JSON.stringify(ctx.principal)},"sandbox":${ctx.sandbox === true},"ip":${JSON.stringify(ctx.ip)},"request_id":""}`;
}

export interface InternalSignerOptions {
  /** Tokens kept for reuse; 0 signs every call afresh. */
  maxCached?: number;
}

/**
 * Signs `X-Internal-Auth` tokens: HS256 JWTs that live 60 s, audience = the
 * called service, binding principal, sandbox and client address (not the
 * request id or trace: those go in their own headers). The same audience and
 * context get the same token for 45 s, so the service's verified-token cache
 * answers every call after the first. Built with node:crypto rather than
 * jsonwebtoken; any JWT library verifies them.
 */
export function createInternalSigner(secret: string, { maxCached = SIGNED_CACHE_MAX }: InternalSignerOptions = {}): InternalSigner {
  const { key } = stateOf(secret);
  const sign = (audience: ServiceName, ctxJson: string) => {
    const iat = nowSeconds();
    const claims = `{"ctx":${ctxJson},"iat":${iat},"exp":${iat + INTERNAL_TOKEN_TTL_SECONDS},"aud":${JSON.stringify(audience)},"iss":"${ISSUER}"}`;
    const signingInput = `${HEADER}.${Buffer.from(claims).toString('base64url')}`;
    return `${signingInput}.${hmac(key, signingInput).toString('base64url')}`;
  };
  if (maxCached === 0) return (audience, ctx) => sign(audience, signedContextJson(ctx));

  // Keyed by exactly what is signed, so a token is only ever reused for the context it binds.
  const tokens = new LRUCache<string, string>({ max: maxCached, ttl: REUSE_SECONDS * 1000 });
  const keyOf = signingKeys();
  return (audience, ctx) => {
    const { ctxJson, cacheKey } = keyOf(audience, ctx);
    let token = tokens.get(cacheKey);
    if (token === undefined) {
      token = sign(audience, ctxJson);
      tokens.set(cacheKey, token);
    }
    return token;
  };
}

interface SigningKey {
  audience: ServiceName;
  sandbox: boolean;
  ip: string;
  ctxJson: string;
  cacheKey: string;
}

/**
 * The context's JSON and the token cache's key, remembered per principal
 * object for its last audience, sandbox and address: the gateway's key cache
 * hands on the same principal object for every request with a key, so those
 * requests neither serialize it again nor hash a fresh key string. Principals
 * are never changed once made.
 */
function signingKeys(): (audience: ServiceName, ctx: Pick<CallContext, 'principal' | 'sandbox' | 'ip'>) => SigningKey {
  const last = new WeakMap<object, SigningKey>();
  const noPrincipal = {};
  return (audience, ctx) => {
    const owner: unknown = ctx.principal === null ? noPrincipal : ctx.principal;
    const sandbox = ctx.sandbox === true;
    const remembered = typeof owner === 'object' && owner !== null ? last.get(owner) : undefined;
    if (remembered && remembered.audience === audience && remembered.sandbox === sandbox && remembered.ip === ctx.ip) return remembered;
    const ctxJson = signedContextJson(ctx);
    const key: SigningKey = { audience, sandbox, ip: ctx.ip, ctxJson, cacheKey: `${audience} ${ctxJson}` };
    if (typeof owner === 'object' && owner !== null) last.set(owner, key);
    return key;
  };
}

/** The signed context of a verified payload, or null when its shape is wrong. */
function contextOf(payload: unknown): SignedCallContext | null {
  if (payload === null || typeof payload !== 'object') return null;
  const parsed = SignedCallContext.safeParse((payload as { ctx?: unknown }).ctx);
  return parsed.success ? parsed.data : null;
}

function verifyWithJsonwebtoken(key: KeyObject, audience: ServiceName, token: string): SignedCallContext | null {
  try {
    return contextOf(jsonwebtoken().verify(token, key, { algorithms: ['HS256'], audience, issuer: ISSUER }));
  } catch {
    return null;
  }
}

/**
 * Verifies a token for `audience`; returns its signed context or null.
 *
 * A token in the form our signer writes is checked with one HMAC and the
 * claims it carries; any other form (another header, unusual claims) goes
 * through jsonwebtoken, so the rules stay jsonwebtoken's. A verified token is
 * remembered by its signature until it expires, so the token a signer reuses
 * for a principal costs one HMAC and one parse per service, not per call.
 */
export function verifyInternalToken(secret: string, audience: ServiceName, token: string): SignedCallContext | null {
  const { key, verified } = stateOf(secret);
  const dot2 = token.lastIndexOf('.');
  const signature = token.slice(dot2 + 1);

  const hit = verified.get(signature);
  if (hit && hit.token === token) return hit.audience === audience ? hit.ctx : null;

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
  const expiresInMs = (claims.exp as number) * 1000 - Date.now();
  if (expiresInMs <= 0 || claims.iss !== ISSUER) return null;
  const ctx = contextOf(claims);
  if (!ctx) return null;
  verified.set(signature, { token, audience: claims.aud, ctx }, { ttl: Math.ceil(expiresInMs) });
  return claims.aud === audience ? ctx : null;
}

/**
 * Rejects any call that did not come through the gateway (or another
 * service) with a valid `X-Internal-Auth` for this service, and puts the
 * caller's context on `req.ctx`: the signed part from the token, the request
 * id and trace from this request's headers.
 */
export function internalAuth(secret: string, audience: ServiceName): RequestHandler {
  declareRequestFields('ctx');
  return (req, _res, next) => {
    const header = req.headers[INTERNAL_AUTH_HEADER];
    const signed = typeof header === 'string' ? verifyInternalToken(secret, audience, header) : null;
    if (!signed) {
      return next(appError('unauthorized', 'Internal authentication is missing or invalid.', {
        hint: 'Call this API through its public gateway.',
      }));
    }
    req.ctx = callContextOf(req, signed);
    next();
  };
}
