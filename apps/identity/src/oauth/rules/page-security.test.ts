import { describe, expect, it } from 'vitest';
import { pageHeaders, pageSecurityPolicy } from './page-security.js';

describe('pageSecurityPolicy', () => {
  it('lets forms post only here on a page without a redirect', () => {
    expect(pageSecurityPolicy()).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
  });

  it('adds the redirect URI origin where the flow may end there', () => {
    expect(pageSecurityPolicy('https://host.example/cb?x=1')).toContain("form-action 'self' https://host.example;");
    expect(pageSecurityPolicy('http://127.0.0.1:4711/cb')).toContain("form-action 'self' http://127.0.0.1:*;");
  });
});

describe('pageHeaders', () => {
  it('forbids framing, caching and referrers', () => {
    expect(pageHeaders()).toMatchObject({ 'X-Frame-Options': 'DENY', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
  });
});
