import { describe, expect, it } from 'vitest';
import { createOriginPolicy, requestedHost } from './origin-policy.js';

describe('createOriginPolicy', () => {
  const dev = createOriginPolicy({ publicBaseUrl: 'https://api.merch.example', production: false, allowedOrigins: [] });
  const open = createOriginPolicy({ publicBaseUrl: 'https://api.merch.example', production: true });
  const prod = createOriginPolicy({
    publicBaseUrl: 'https://api.merch.example',
    production: true,
    allowedOrigins: ['https://console.example.org', 'http://tools.example.org:*', 'not a url'],
    allowedHosts: ['mcp.example.org:443'],
  });

  it('allows a request without Origin (non-browser clients)', () => {
    expect(prod.originAllowed(undefined)).toBe(true);
    expect(prod.originAllowed('')).toBe(true);
  });

  it('allows the origin of the public base URL', () => {
    expect(prod.originAllowed('https://api.merch.example')).toBe(true);
    expect(prod.originAllowed('http://api.merch.example')).toBe(false);
    expect(prod.originAllowed('https://api.merch.example:8443')).toBe(false);
  });

  it('allows localhost origins on any port outside production only', () => {
    expect(dev.originAllowed('http://localhost:5173')).toBe(true);
    expect(dev.originAllowed('http://127.0.0.1:6274')).toBe(true);
    expect(prod.originAllowed('http://localhost:5173')).toBe(false);
  });

  it('allows configured origins, exact or with any port', () => {
    expect(prod.originAllowed('https://console.example.org')).toBe(true);
    expect(prod.originAllowed('http://tools.example.org:3000')).toBe(true);
    expect(prod.originAllowed('https://tools.example.org:3000')).toBe(false);
  });

  it('allows any browser origin by default, but not the opaque or a malformed one', () => {
    expect(open.originAllowed('http://localhost:6274')).toBe(true);
    expect(open.originAllowed('https://web-host.example')).toBe(true);
    expect(open.originAllowed('null')).toBe(false);
    expect(open.originAllowed('localhost')).toBe(false);
  });

  it('keeps checking Host when any origin is allowed: the protection against DNS rebinding', () => {
    expect(open.hostAllowed('rebound.evil.example')).toBe(false);
    expect(open.hostAllowed('api.merch.example')).toBe(true);
  });

  it('refuses foreign, malformed and opaque origins when a list is given', () => {
    expect(dev.originAllowed('https://evil.example')).toBe(false);
    expect(dev.originAllowed('null')).toBe(false);
    expect(dev.originAllowed('localhost')).toBe(false);
  });

  it('allows the public host, configured hosts and localhost outside production, whatever the port', () => {
    expect(prod.hostAllowed('api.merch.example')).toBe(true);
    expect(prod.hostAllowed('api.merch.example:8080')).toBe(true);
    expect(prod.hostAllowed('mcp.example.org')).toBe(true);
    expect(prod.hostAllowed('localhost:8080')).toBe(false);
    expect(dev.hostAllowed('127.0.0.1:8085')).toBe(true);
    expect(dev.hostAllowed('evil.example')).toBe(false);
    expect(dev.hostAllowed(undefined)).toBe(false);
  });
});

describe('requestedHost', () => {
  it('prefers the last X-Forwarded-Host entry over Host', () => {
    expect(requestedHost({ host: '127.0.0.1:8085', 'x-forwarded-host': 'api.merch.example' })).toBe('api.merch.example');
    expect(requestedHost({ host: '127.0.0.1:8085', 'x-forwarded-host': 'spoofed.example, api.merch.example' })).toBe('api.merch.example');
  });

  it('falls back to Host', () => {
    expect(requestedHost({ host: 'localhost:8080' })).toBe('localhost:8080');
  });
});
