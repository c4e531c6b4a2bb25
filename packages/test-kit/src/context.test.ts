import { verifyInternalToken } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { TEST_INTERNAL_SECRET, buildContext, buildPrincipal, internalHeaders, testEcKeyPair } from './context.js';

describe('internalHeaders', () => {
  it('signs a context the called service accepts and no other service does', () => {
    const principal = buildPrincipal({ mode: 'live' });

    const token = internalHeaders('requests', { principal, sandbox: true })['x-internal-auth']!;

    expect(verifyInternalToken(TEST_INTERNAL_SECRET, 'requests', token)).toMatchObject({ principal, sandbox: true });
    expect(verifyInternalToken(TEST_INTERNAL_SECRET, 'catalog', token)).toBeNull();
  });
});

describe('builders', () => {
  it('give each principal its own client id, with overrides kept', () => {
    const a = buildPrincipal();
    const b = buildPrincipal({ scopes: ['catalog:read'] });

    expect(a.id).not.toBe(b.id);
    expect(a.id).toMatch(/^msa_client_[0-9a-f]{16}$/);
    expect(b.scopes).toEqual(['catalog:read']);
  });

  it('build an anonymous production context by default', () => {
    expect(buildContext()).toMatchObject({ principal: null, sandbox: false, ip: '127.0.0.1' });
  });

  it('make an ES256 key pair in PEM', () => {
    const { privateKeyPem, publicKeyPem } = testEcKeyPair();

    expect(privateKeyPem).toContain('BEGIN PRIVATE KEY');
    expect(publicKeyPem).toContain('BEGIN PUBLIC KEY');
  });
});
