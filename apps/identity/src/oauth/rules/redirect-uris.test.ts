import { describe, expect, it } from 'vitest';
import { formActionSource, matchRedirectUri, redirectUriProblem } from './redirect-uris.js';

describe('redirectUriProblem', () => {
  it('accepts https, loopback http and an app scheme', () => {
    expect(redirectUriProblem('https://host.example/cb')).toBeNull();
    expect(redirectUriProblem('http://127.0.0.1:4711/cb')).toBeNull();
    expect(redirectUriProblem('com.example.app:/cb')).toBeNull();
  });

  it('refuses a fragment, a script scheme, http beyond loopback and user information', () => {
    expect(redirectUriProblem('https://host.example/cb#x')).toBe('must not have a fragment');
    expect(redirectUriProblem('javascript:alert(1)')).toBe('javascript: is not a redirect scheme');
    expect(redirectUriProblem('http://host.example/cb')).toMatch(/^http is only allowed for loopback/);
    expect(redirectUriProblem('https://user:pw@host.example/cb')).toBe('must not carry user information');
    expect(redirectUriProblem('not a uri')).toBe('must be an absolute URI');
  });
});

describe('matchRedirectUri', () => {
  it('matches the registered string exactly', () => {
    expect(matchRedirectUri('https://host.example/cb', ['https://host.example/cb'])).toBe(true);
    expect(matchRedirectUri('https://host.example/cb/', ['https://host.example/cb'])).toBe(false);
  });

  it('lets a loopback redirect use any port, nothing else', () => {
    expect(matchRedirectUri('http://127.0.0.1:9999/cb', ['http://127.0.0.1:3000/cb'])).toBe(true);
    expect(matchRedirectUri('http://127.0.0.1:9999/other', ['http://127.0.0.1:3000/cb'])).toBe(false);
    expect(matchRedirectUri('http://localhost:9999/cb', ['http://127.0.0.1:3000/cb'])).toBe(false);
  });
});

describe('formActionSource', () => {
  it('names the origin, any port of a loopback host, or the app scheme', () => {
    expect(formActionSource('https://host.example/cb?x=1')).toBe('https://host.example');
    expect(formActionSource('http://127.0.0.1:4711/cb')).toBe('http://127.0.0.1:*');
    expect(formActionSource('com.example.app:/cb')).toBe('com.example.app:');
  });
});
