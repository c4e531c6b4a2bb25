import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import type { CallContext, Principal } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { createInternalSigner, verifyInternalToken } from './internal-auth.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const ctx: CallContext = { principal: null, sandbox: false, ip: '203.0.113.9', request_id: 'req-1' };
const principal: Principal = { id: 'msa_client_0123456789abcdef', name: 'agent', scopes: ['catalog:read'], mode: 'live', tier: 'free', via: 'api_key' };

const jsonwebtokenLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/jsonwebtoken/'));

/** An HS256 token in the signer's own form, with whatever claims a test needs. */
function signClaims(claims: object): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);

describe('verifyInternalToken', () => {
  it('loads jsonwebtoken only for the first token in a form the signer never writes', () => {
    const ours = createInternalSigner(SECRET)('shops', ctx);

    expect(verifyInternalToken(SECRET, 'shops', ours)).toEqual({ version: 2, principal: null, sandbox: false, ip: '203.0.113.9' });
    expect(jsonwebtokenLoaded()).toBe(false);

    const foreignHeader = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url');
    expect(verifyInternalToken(SECRET, 'shops', `${foreignHeader}.e30.c2ln`)).toBeNull();
    expect(jsonwebtokenLoaded()).toBe(true);
  });

  it('accepts a version 1 context, which carried the request id and trace inside, and unknown fields', () => {
    const previous = { principal, sandbox: true, ip: '203.0.113.9', request_id: 'req-old', traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, later: 'x' };
    const token = signClaims({ ctx: previous, iat: now(), exp: now() + 60, aud: 'catalog', iss: 'msa-internal' });

    expect(verifyInternalToken(SECRET, 'catalog', token)).toEqual({ principal, sandbox: true, ip: '203.0.113.9' });
  });

  it('refuses a context of a later version, whose meaning this release cannot check', () => {
    const token = signClaims({ ctx: { version: 3, principal: null, sandbox: false, ip: '203.0.113.9' }, iat: now(), exp: now() + 60, aud: 'catalog', iss: 'msa-internal' });

    expect(verifyInternalToken(SECRET, 'catalog', token)).toBeNull();
  });
});

describe('createInternalSigner', () => {
  it('hands out one token per audience and signed context, whatever the request id and trace', () => {
    const sign = createInternalSigner(SECRET);

    const first = sign('catalog', { ...ctx, principal, request_id: 'req-1', traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` });
    const second = sign('catalog', { ...ctx, principal: { ...principal }, request_id: 'req-2' });

    expect(second).toBe(first);
  });

  it.each([
    ['another audience', { audience: 'shops' as const }],
    ['another address', { ctx: { ip: '198.51.100.1' } }],
    ['the sandbox', { ctx: { sandbox: true } }],
    ['another principal', { ctx: { principal: { ...principal, id: 'msa_client_fedcba9876543210' } } }],
    ['other scopes', { ctx: { principal: { ...principal, scopes: ['catalog:read' as const, 'requests:write' as const] } } }],
    ['no principal', { ctx: { principal: null } }],
  ])('signs a token of its own for %s', (_what, change: { audience?: 'shops'; ctx?: Partial<CallContext> }) => {
    const sign = createInternalSigner(SECRET);
    const base = { ...ctx, principal };

    const token = sign(change.audience ?? 'catalog', { ...base, ...change.ctx });

    expect(token).not.toBe(sign('catalog', base));
  });

  it('signs every call afresh when told to keep nothing', () => {
    const sign = createInternalSigner(SECRET, { maxCached: 0 });

    expect(verifyInternalToken(SECRET, 'catalog', sign('catalog', ctx))).toEqual({ version: 2, principal: null, sandbox: false, ip: '203.0.113.9' });
  });
});
