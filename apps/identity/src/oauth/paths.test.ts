import { routePathOf } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { OAUTH_PATHS, PAGE_PATHS, consentPath } from './paths.js';

describe('OAUTH_PATHS', () => {
  it('takes the endpoints from the operations table', () => {
    expect(OAUTH_PATHS).toEqual({
      authorize: '/oauth/authorize',
      consent: '/oauth/consent/{interaction}',
      token: '/oauth/token',
      register: '/oauth/register',
      revoke: '/oauth/revoke',
      jwks: '/.well-known/jwks.json',
    });
  });

  it('takes the pages the discovery documents link from the operations table', () => {
    expect(PAGE_PATHS).toEqual({ developers: '/developers', privacy: '/privacy', terms: '/terms' });
  });

  it('routes the consent page with an express parameter', () => {
    expect(routePathOf('consent')).toBe('/oauth/consent/:interaction');
  });

  it('names the consent page of one interaction', () => {
    expect(consentPath('abc123')).toBe('/oauth/consent/abc123');
  });
});
