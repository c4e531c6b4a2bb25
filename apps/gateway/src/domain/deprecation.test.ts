import { describe, expect, it } from 'vitest';
import { createDeprecationLookup } from './deprecation.js';

describe('deprecation lookup', () => {
  const lookup = createDeprecationLookup(
    [{ method: 'GET', path: '/v1/products/:handle', deprecatedAt: '2026-01-01', sunset: '2026-07-01', notice: '/developers#deprecations' }],
    'https://api.example.org',
  );

  it('gives Deprecation, Sunset and Link for a listed operation', () => {
    expect(lookup('GET', '/v1/products/bio-shirt')).toEqual({
      Deprecation: 'true',
      Sunset: 'Wed, 01 Jul 2026 00:00:00 GMT',
      Link: '<https://api.example.org/developers#deprecations>; rel="deprecation"; type="text/html"',
    });
  });

  it('gives nothing for other methods or paths', () => {
    expect(lookup('POST', '/v1/products/bio-shirt')).toBeNull();
    expect(lookup('GET', '/v1/products')).toBeNull();
  });
});
