import { BOUNDS, DateTime, LIMITS, Mode, SCOPES, SERVICE_FACTS, Scope } from './common.js';
import { z } from './zod.js';

export const ApiKeyRequest = z
  .strictObject({
    name: z.string().trim().min(LIMITS.keyNameMin).max(LIMITS.keyNameMax),
    email: z.email('must be a valid e-mail address').max(254),
    scopes: z.array(Scope).min(1).default([...SCOPES]),
    mode: Mode.default('sandbox'),
  })
  .openapi('ApiKeyRequest');
export type ApiKeyRequest = z.infer<typeof ApiKeyRequest>;

/** The §8 figures that apply to a set of credentials, shown with them; further keys may come. */
export const ApiKeyLimits = z
  .looseObject({
    requests_per_minute: z.number().int(),
    live_shop_requests_per_day: z.number().int(),
    sandbox_shop_requests_per_day: z.number().int(),
    access_token_lifetime_seconds: z.number().int(),
    daily_limits_reset: z.string(),
  })
  .openapi('ApiKeyLimits', { description: 'The limits that apply to these credentials; daily quotas start again at `daily_limits_reset`.' });
export type ApiKeyLimits = z.infer<typeof ApiKeyLimits>;

/** The limits of the free tier, the only tier so far, read from `LIMITS`. */
export function apiKeyLimits(): ApiKeyLimits {
  return {
    requests_per_minute: LIMITS.ratePerMinuteWithCredentials,
    live_shop_requests_per_day: LIMITS.liveShopRequestsPerDay,
    sandbox_shop_requests_per_day: LIMITS.sandboxShopRequestsPerDay,
    access_token_lifetime_seconds: LIMITS.accessTokenLifetimeSeconds,
    daily_limits_reset: SERVICE_FACTS.dailyLimitsReset,
  };
}

export const ApiKey = z
  .object({
    api_key: z.string(),
    client_id: z.string(),
    client_secret: z.string(),
    mode: Mode,
    scopes: z.array(Scope),
    tier: z.string(),
    limits: ApiKeyLimits,
    created_at: DateTime,
  })
  .openapi('ApiKey');
export type ApiKey = z.infer<typeof ApiKey>;

export const Via = z.enum(['api_key', 'oauth']);

export const Principal = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(Scope),
    mode: Mode,
    tier: z.string(),
    via: Via,
  })
  .openapi('Principal');
export type Principal = z.infer<typeof Principal>;

export const TokenRequest = z
  .object({
    grant_type: z.string().openapi({ example: 'client_credentials' }),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    scope: z.string().optional(),
    // RFC 8707: repeated in a form body it arrives as an array, refused as invalid_target.
    resource: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .openapi({
        type: 'string',
        format: 'uri',
        description:
          'RFC 8707 resource indicator: the token\'s `aud`. This API (`{base}`), its MCP endpoint (`{base}/mcp`) or their sandbox forms; without it `aud` is `{base}`.',
        example: 'https://api.example.org/mcp',
      }),
  })
  .openapi('TokenRequest');
export type TokenRequest = z.infer<typeof TokenRequest>;

export const TokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int(),
    scope: z.string().optional(),
  })
  .openapi('TokenResponse');
export type TokenResponse = z.infer<typeof TokenResponse>;

// RFC 7591 clients send further metadata (redirect_uris, logo_uri, …): accepted and ignored.
export const ClientRegistrationRequest = z
  .looseObject({
    client_name: z.string().trim().min(LIMITS.keyNameMin).max(LIMITS.keyNameMax),
    contacts: z.array(z.email('must be a valid e-mail address')).min(1, 'at least one e-mail address is required'),
    scope: z.string().optional(),
    grant_types: z.array(z.literal('client_credentials')).optional(),
    token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post']).optional(),
    mode: Mode.default('sandbox'),
  })
  .openapi('ClientRegistrationRequest');
export type ClientRegistrationRequest = z.infer<typeof ClientRegistrationRequest>;

export const ClientRegistration = z
  .object({
    client_id: z.string(),
    client_secret: z.string(),
    client_id_issued_at: z.number().int(),
    client_secret_expires_at: z.number().int(),
    client_name: z.string(),
    grant_types: z.array(z.string()),
    token_endpoint_auth_method: z.string(),
    scope: z.string(),
    api_key: z.string(),
    mode: Mode.optional(),
  })
  .openapi('ClientRegistration');
export type ClientRegistration = z.infer<typeof ClientRegistration>;

/** Internal: the gateway asks identity who an API key belongs to. */
export const IntrospectionRequest = z.object({ api_key: z.string().min(1).max(BOUNDS.apiKeyMaxLength) });
export const IntrospectionResponse = z.discriminatedUnion('active', [
  z.object({ active: z.literal(true), principal: Principal.omit({ via: true }) }),
  z.object({ active: z.literal(false) }),
]);
export type IntrospectionResponse = z.infer<typeof IntrospectionResponse>;

/** The claims of an RFC 9068 access token (`typ: at+jwt`) that the gateway reads; `iss`, `aud`, `exp`, `iat` and `jti` are checked by the verifier. */
export const AccessTokenClaims = z.object({
  sub: z.string(),
  client_id: z.string(),
  scope: z.string(),
  name: z.string(),
  mode: Mode,
  tier: z.string(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaims>;
