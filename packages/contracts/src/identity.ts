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

/** The OAuth client a person authorized on the consent page. */
export const AuthorizedClient = z
  .object({
    id: z.string().openapi({ description: 'Its `client_id`: a Client ID Metadata Document URL, or the id a registration returned.' }),
    name: z.string(),
  })
  .openapi('AuthorizedClient');
export type AuthorizedClient = z.infer<typeof AuthorizedClient>;

export const Principal = z
  .object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(Scope),
    mode: Mode,
    tier: z.string(),
    via: Via,
    confirmed_email: z
      .string()
      .optional()
      .openapi({ description: 'The address a person confirmed with an e-mailed code on the consent page (authorization code grant only).' }),
    client: AuthorizedClient.optional().openapi({ description: 'The client the person authorized (authorization code grant only).' }),
  })
  .openapi('Principal');
export type Principal = z.infer<typeof Principal>;

export const TokenRequest = z
  .object({
    grant_type: z.string().openapi({ example: 'client_credentials', description: '`client_credentials`, `authorization_code` or `refresh_token`.' }),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    scope: z.string().optional(),
    code: z.string().optional().openapi({ description: '`authorization_code`: the code the authorization response carried.' }),
    redirect_uri: z.string().optional().openapi({ description: '`authorization_code`: the redirect URI of the authorization request.' }),
    code_verifier: z.string().optional().openapi({ description: '`authorization_code`: the PKCE verifier (RFC 7636) of the S256 challenge.' }),
    refresh_token: z.string().optional().openapi({ description: '`refresh_token`: the refresh token; each use returns a new one.' }),
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
    refresh_token: z.string().optional().openapi({ description: 'Authorization code and refresh grants: the next refresh token. It rotates on every use.' }),
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

/**
 * RFC 7591 registration of a public client for the authorization code grant,
 * as agent hosts send it: `client_name` and `redirect_uris`, no secret and no
 * `contacts` (the person is confirmed on the consent page).
 */
export const PublicClientRegistrationRequest = z
  .looseObject({
    client_name: z.string().trim().min(1).max(LIMITS.keyNameMax).optional(),
    redirect_uris: z.array(z.string().max(BOUNDS.oauthUrlMaxLength)).min(1, 'at least one redirect URI is required').max(10),
    token_endpoint_auth_method: z.literal('none').optional(),
    grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).optional(),
    response_types: z.array(z.literal('code')).optional(),
    scope: z.string().optional(),
    client_uri: z.string().max(BOUNDS.oauthUrlMaxLength).optional(),
  })
  .openapi('PublicClientRegistrationRequest');
export type PublicClientRegistrationRequest = z.infer<typeof PublicClientRegistrationRequest>;

export const PublicClientRegistration = z
  .object({
    client_id: z.string(),
    client_id_issued_at: z.number().int(),
    client_name: z.string(),
    redirect_uris: z.array(z.string()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.literal('none'),
    scope: z.string(),
  })
  .openapi('PublicClientRegistration');
export type PublicClientRegistration = z.infer<typeof PublicClientRegistration>;

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

/** Internal: whether the grant of an authorization-code access token is still active. */
export const GrantStatusResponse = z.object({ active: z.boolean() });

/** The claims of an RFC 9068 access token (`typ: at+jwt`) that the gateway reads; `iss`, `aud`, `exp`, `iat` and `jti` are checked by the verifier. */
export const AccessTokenClaims = z.object({
  sub: z.string(),
  client_id: z.string(),
  scope: z.string(),
  name: z.string(),
  mode: Mode,
  tier: z.string(),
  /** Authorization code grant: the address confirmed on the consent page, and the client's name. */
  email: z.string().optional(),
  client_name: z.string().optional(),
  /** Authorization code grant: the grant the token belongs to, so a revoked grant revokes its tokens. */
  grant: z.string().optional(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaims>;
