import { z } from './zod.js';

/** Short service prefix in every credential: `msa_test_…`, `msa_live_…`, `msa_client_…`. */
export const SERVICE_PREFIX = 'msa';
export const API_VERSION = '1';

export const SCOPES = ['catalog:read', 'shops:read', 'requests:write', 'requests:read'] as const;
export const Scope = z.enum(SCOPES).openapi('Scope');
export type Scope = z.infer<typeof Scope>;

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'catalog:read': 'Read base products, printed from-prices, colors, sizes and availability',
  'shops:read': 'List the public merch shops',
  'requests:write': 'Create a shop request on behalf of an organization',
  'requests:read': 'Read the status of shop requests created with the same credentials',
};

export const Mode = z.enum(['sandbox', 'live']).openapi('Mode');
export type Mode = z.infer<typeof Mode>;

export const Decoration = z.enum(['dtf', 'stick', 'dtg']);
export type Decoration = z.infer<typeof Decoration>;

/** The figures of spec §8, in one place for code, documents and the ApiKey `limits`. */
export const LIMITS = {
  ratePerMinuteWithCredentials: 300,
  ratePerMinuteAnonymous: 60,
  /** MCP handshake messages (initialize, notifications/initialized, server/discover) per minute, counted apart from requests. */
  mcpHandshakesPerMinute: 240,
  liveShopRequestsPerDay: 5,
  sandboxShopRequestsPerDay: 200,
  /** Live shop requests per day whose contact address is at one mail domain, across all principals. */
  liveShopRequestsPerDomainPerDay: 20,
  /** Sandbox shop requests per day from one client address (IPv6 by its prefix), across all its principals and anonymous calls. */
  sandboxShopRequestsPerAddressPerDay: 200,
  /** Quotes stored per day for one principal, and for one client address across all its principals and anonymous calls. */
  quotesPerPrincipalPerDay: 100,
  quotesPerAddressPerDay: 200,
  keyCreationsPerIpPerDay: 10,
  listProductsLimitMax: 250,
  listProductsLimitDefault: 50,
  productsPerShopRequest: 20,
  shopNameMax: 80,
  notesMax: 2000,
  occasionMax: 120,
  commentMax: 500,
  queryQMax: 100,
  queryTypeMax: 60,
  keyNameMin: 2,
  keyNameMax: 80,
  logoMaxBytes: 4 * 1024 * 1024,
  /** Distinct logo URLs in one shop request: each is downloaded and attached to one e-mail. */
  logoUrlsPerShopRequest: 20,
  designWidthMinCm: 1,
  designWidthMaxCm: 40,
  accessTokenLifetimeSeconds: 3600,
  idempotencyWindowSeconds: 24 * 3600,
  /** Failed authentications (unknown key, bad token, malformed credential) per client IP per minute in the gateway. */
  failedAuthPerIpPerMinute: 30,
  /** Wrong secrets for one `client_id` at /oauth/token before back-off starts. */
  tokenFailuresBeforeBackoff: 5,
  /** The first back-off block; each further wrong secret doubles it, up to the maximum. */
  tokenBackoffBaseSeconds: 1,
  tokenBackoffMaxSeconds: 15 * 60,
  /** A series of wrong secrets is forgotten this long after it began, or at the first success. */
  tokenFailureMemorySeconds: 3600,
  /** An authorization code is single use and lives this long (OAuth 2.1 §4.1.2 recommends at most 10 minutes). */
  authorizationCodeLifetimeSeconds: 600,
  /** The consent page's e-mailed one-time code: its lifetime and the tries it allows. */
  consentCodeLifetimeSeconds: 600,
  consentCodeAttempts: 5,
  /** A consent page left open expires after this long. */
  consentInteractionSeconds: 1800,
  /** One-time code e-mails per address and per client IP per hour. */
  consentMailsPerAddressPerHour: 5,
  consentMailsPerIpPerHour: 20,
  /** Public clients (redirect URIs, no secret) registered per client IP per day; counted apart from keys. */
  publicClientRegistrationsPerIpPerDay: 50,
  /** A public client or a refresh token unused this long expires. */
  publicClientIdleDays: 30,
  refreshTokenIdleDays: 30,
  /** A quote is stored, and can be read back and named by a shop request, this long after it was made. */
  quoteLifetimeDays: 7,
  /** A stored live shop request's default lifetime (the requests service's SHOP_REQUEST_LIVE_RETENTION_DAYS); the privacy notice states it. */
  liveShopRequestRetentionDays: 730,
  /** Sandbox shop requests are test data, kept a week to read back. */
  sandboxShopRequestRetentionDays: 7,
  /** The longest a daily count that names a client address or a mailbox lives (until past its UTC midnight). */
  limiterKeyRetentionDays: 2,
  /** Lines of one quote, and the pieces of one line. */
  quoteLinesMax: 20,
  quoteQuantityMax: 100_000,
} as const;

/**
 * Bounds on what a request may carry, checked where it enters a process: the
 * gateway refuses a credential past its length before asking identity, and
 * every service refuses a body past its size or nesting depth before any
 * handler (or JSON.stringify, which recurses) walks it.
 */
export const BOUNDS = {
  /** `msa_live_` plus at most 128 base62 characters fits; identity issues 40. */
  apiKeyMaxLength: 200,
  /** An ES256 access token is about 600 characters; room for longer claims. */
  accessTokenMaxLength: 4096,
  clientIdMaxLength: 100,
  /** A Client ID Metadata Document URL used as `client_id`, and each redirect URI. */
  oauthUrlMaxLength: 2048,
  /** The largest Client ID Metadata Document fetched. */
  clientMetadataMaxBytes: 5 * 1024,
  clientSecretMaxLength: 200,
  bodyMaxBytes: 100 * 1024,
  /** Objects and arrays inside each other; a shop request needs 4, a JSON-RPC call about 7. */
  jsonMaxDepth: 32,
} as const;

/** Promises the service makes in words (mails, documents, tool descriptions), as figures. */
export const SERVICE_FACTS = {
  /** The operator team builds a requested shop and answers the contact within this many hours. */
  replyWithinHours: 48,
  /** When the daily quotas start again: the calendar day in UTC. */
  dailyLimitsReset: '00:00 UTC',
} as const;

export const VAT_RATE = 0.19;
export const CURRENCY = 'EUR';
export const HANDLE_PATTERN = /^[a-z0-9-]+$/;
export const SHOP_REQUEST_ID_PATTERN = /^req_[0-9a-f]{16}$/;
export const QUOTE_ID_PATTERN = /^quo_[0-9a-f]{16}$/;

export const DateTime = z.iso.datetime({ offset: true });

/** Here rather than beside the quote, because a shop request names one too. */
export const QuoteId = z.string().regex(QUOTE_ID_PATTERN, 'must match ^quo_[0-9a-f]{16}$');
