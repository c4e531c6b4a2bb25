import { describe, expect, it } from 'vitest';
import { narrowScopes, parseRegistrationScope } from './scopes.js';

describe('narrowScopes', () => {
  const granted = ['catalog:read', 'shops:read', 'requests:read'] as const;

  it('grants every granted scope when none is asked for', () => {
    expect(narrowScopes([...granted], undefined)).toEqual({ ok: true, scopes: [...granted] });
    expect(narrowScopes([...granted], '  ')).toEqual({ ok: true, scopes: [...granted] });
  });

  it('narrows to the requested subset in the canonical order', () => {
    expect(narrowScopes([...granted], 'requests:read  catalog:read')).toEqual({ ok: true, scopes: ['catalog:read', 'requests:read'] });
  });

  it('refuses a scope the client was not granted', () => {
    expect(narrowScopes([...granted], 'catalog:read requests:write')).toEqual({
      ok: false,
      unknown: [],
      notGranted: ['requests:write'],
    });
  });

  it('refuses a scope the API does not have', () => {
    expect(narrowScopes([...granted], 'admin')).toEqual({ ok: false, unknown: ['admin'], notGranted: [] });
  });

  it('accepts offline_access and leaves it out of the scopes', () => {
    expect(narrowScopes([...granted], 'offline_access catalog:read')).toEqual({ ok: true, scopes: ['catalog:read'] });
    expect(narrowScopes([...granted], 'offline_access')).toEqual({ ok: true, scopes: [...granted] });
  });
});

describe('parseRegistrationScope', () => {
  it('gives all four scopes when none is asked for', () => {
    expect(parseRegistrationScope(undefined)).toEqual({
      ok: true,
      scopes: ['catalog:read', 'shops:read', 'requests:write', 'requests:read'],
    });
  });

  it('accepts offline_access in a registration and registers no such scope', () => {
    expect(parseRegistrationScope('catalog:read offline_access')).toEqual({ ok: true, scopes: ['catalog:read'] });
  });

  it('names unknown scopes', () => {
    expect(parseRegistrationScope('catalog:read openid')).toEqual({ ok: false, unknown: ['openid'] });
  });
});
