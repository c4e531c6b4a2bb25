import { describe, expect, it } from 'vitest';
import { LIMITS, SCOPES } from './common.js';
import { ApiKey, ApiKeyLimits, ApiKeyRequest, ClientRegistrationRequest, TokenResponse, apiKeyLimits } from './identity.js';

function keyProblems(body: unknown): string[] {
  const parsed = ApiKeyRequest.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'));
}

describe('ApiKeyRequest', () => {
  it('defaults to every scope and sandbox mode', () => {
    const parsed = ApiKeyRequest.parse({ name: 'my-agent', email: 'dev@example.de' });

    expect(parsed.scopes).toEqual([...SCOPES]);
    expect(parsed.mode).toBe('sandbox');
  });

  it.each([2, 80])('accepts a name of %i characters', (length) => {
    expect(keyProblems({ name: 'n'.repeat(length), email: 'dev@example.de' })).toEqual([]);
  });

  it.each([1, 81])('rejects a name of %i characters', (length) => {
    expect(keyProblems({ name: 'n'.repeat(length), email: 'dev@example.de' })).toEqual(['name']);
  });

  it('rejects an invalid e-mail address', () => {
    expect(keyProblems({ name: 'my-agent', email: 'dev-at-example.de' })).toEqual(['email']);
  });

  it('rejects an unknown scope at its index', () => {
    expect(keyProblems({ name: 'my-agent', email: 'dev@example.de', scopes: ['catalog:read', 'admin'] })).toEqual(['scopes.1']);
  });

  it('accepts live mode and rejects other modes', () => {
    expect(ApiKeyRequest.parse({ name: 'my-agent', email: 'dev@example.de', mode: 'live' }).mode).toBe('live');
    expect(keyProblems({ name: 'my-agent', email: 'dev@example.de', mode: 'production' })).toEqual(['mode']);
  });

  it('rejects an unknown field', () => {
    const parsed = ApiKeyRequest.safeParse({ name: 'my-agent', email: 'dev@example.de', tier: 'pro' });

    expect(parsed.error?.issues).toEqual([expect.objectContaining({ code: 'unrecognized_keys', keys: ['tier'] })]);
  });
});

describe('ClientRegistrationRequest', () => {
  it('accepts further RFC 7591 metadata and defaults to sandbox', () => {
    const parsed = ClientRegistrationRequest.parse({
      client_name: 'my-agent',
      contacts: ['dev@example.de'],
      redirect_uris: ['https://example.de/cb'],
    });

    expect(parsed.mode).toBe('sandbox');
  });

  it('needs at least one contact e-mail', () => {
    expect(ClientRegistrationRequest.safeParse({ client_name: 'my-agent', contacts: [] }).success).toBe(false);
  });

  it('accepts only the client_credentials grant', () => {
    const body = { client_name: 'my-agent', contacts: ['dev@example.de'], grant_types: ['authorization_code'] };

    expect(ClientRegistrationRequest.safeParse(body).success).toBe(false);
  });
});

describe('TokenResponse', () => {
  it('promises token_type Bearer', () => {
    expect(TokenResponse.safeParse({ access_token: 'a', token_type: 'bearer', expires_in: 3600 }).success).toBe(false);
    expect(TokenResponse.safeParse({ access_token: 'a', token_type: 'Bearer', expires_in: 3600 }).success).toBe(true);
  });
});

describe('apiKeyLimits', () => {
  it('states the per-credential figures of LIMITS and the UTC day boundary', () => {
    expect(apiKeyLimits()).toEqual({
      requests_per_minute: LIMITS.ratePerMinuteWithCredentials,
      live_shop_requests_per_day: LIMITS.liveShopRequestsPerDay,
      sandbox_shop_requests_per_day: LIMITS.sandboxShopRequestsPerDay,
      access_token_lifetime_seconds: LIMITS.accessTokenLifetimeSeconds,
      daily_limits_reset: '00:00 UTC',
    });
  });

  it('keeps further limits a later tier may add, as the specification allows', () => {
    expect(ApiKeyLimits.parse({ ...apiKeyLimits(), logo_fetches_per_day: 3 })).toMatchObject({ logo_fetches_per_day: 3 });
  });

  it('refuses an ApiKey whose limits lack a figure', () => {
    const { requests_per_minute: _dropped, ...partial } = apiKeyLimits();
    const key = { api_key: 'k', client_id: 'c', client_secret: 's', mode: 'sandbox', scopes: [...SCOPES], tier: 'free', created_at: '2026-01-15T09:00:00Z' };

    expect(ApiKey.safeParse({ ...key, limits: apiKeyLimits() }).success).toBe(true);
    expect(ApiKey.safeParse({ ...key, limits: partial }).success).toBe(false);
  });
});
