import { describe, expect, it } from 'vitest';
import { audienceFor, sameResource } from './resource-indicator.js';

const BASE = 'https://api.example.org';

describe('audienceFor', () => {
  it('keeps the base URL as audience when no resource is named', () => {
    expect(audienceFor(BASE, undefined)).toEqual({ ok: true, audience: BASE });
  });

  it.each([
    [`${BASE}`, BASE],
    [`${BASE}/`, `${BASE}/`],
    [`${BASE}/mcp`, `${BASE}/mcp`],
    [`${BASE}/mcp/`, `${BASE}/mcp/`],
    [`${BASE}/sandbox/`, `${BASE}/sandbox/`],
    ['HTTPS://API.example.org:443/mcp', `${BASE}/mcp`],
    [`${BASE}/sandbox`, `${BASE}/sandbox`],
    [`${BASE}/sandbox/mcp`, `${BASE}/sandbox/mcp`],
  ])('gives the token for resource %s the audience %s', (resource, audience) => {
    expect(audienceFor(BASE, resource)).toEqual({ ok: true, audience });
  });

  it.each([
    ['another host', 'https://evil.example.org/mcp'],
    ['a path this API does not serve as a resource', `${BASE}/v1/products`],
    ['a relative reference', '/mcp'],
    ['a fragment', `${BASE}/mcp#x`],
    ['two trailing slashes', `${BASE}//`],
  ])('refuses %s', (_label, resource) => {
    expect(audienceFor(BASE, resource).ok).toBe(false);
  });

  it('counts a resource with and without its trailing slash as one, and no other', () => {
    expect(sameResource(`${BASE}/`, BASE)).toBe(true);
    expect(sameResource(`${BASE}/mcp/`, `${BASE}/mcp`)).toBe(true);
    expect(sameResource(`${BASE}/mcp`, BASE)).toBe(false);
  });

  it('refuses more than one resource in one request', () => {
    expect(audienceFor(BASE, [BASE, `${BASE}/mcp`])).toEqual({ ok: false, message: 'Name one resource per token request.' });
  });
});
