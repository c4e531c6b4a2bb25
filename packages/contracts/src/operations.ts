// Every public operation and every other route the gateway serves, written
// once. OpenAPI builds its paths from this table, the gateway its route
// table, and the documents their links, endpoint tables and zero-auth list,
// so adding an entry here is what adds an operation everywhere.
import type { ZodType } from 'zod';
import { LIMITS, type Scope } from './common.js';
import { Pricing, Product, ProductHandleParams, ProductList, ProductListQuery } from './catalog.js';
import { ShopList, ShopListQuery } from './shops.js';
import { ShopRequestBody, ShopRequestIdParams, ShopRequestResult } from './shop-requests.js';
import { Quote, QuoteBody, QuoteIdParams } from './quotes.js';
import {
  ApiKey,
  ApiKeyRequest,
  ClientRegistration,
  ClientRegistrationRequest,
  Principal,
  TokenRequest,
  TokenResponse,
} from './identity.js';
import { PersonalDataExport } from './privacy.js';
import { z } from './zod.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** The service that answers; `docs` is the documents router inside the gateway. */
export type OperationService = 'catalog' | 'shops' | 'requests' | 'identity' | 'mcp' | 'docs';

/** `none`: credentials are not read; `open`: optional, used when given; `required`: 401 without. */
export type OperationAuth = 'none' | 'open' | 'required';

/**
 * Where the sandbox copy lives. `mirrored`: at `<base>/sandbox<path>`;
 * `path-insertion`: OAuth metadata, with `/sandbox` after the well-known name
 * (RFC 8414 / RFC 9728); `shared`: one resource for both environments.
 */
export type SandboxForm = 'mirrored' | 'path-insertion' | 'shared';

/** The headers a response can carry, documented once as `components.headers`. */
export const RESPONSE_HEADERS = {
  'API-Version': 'The API version of this response (`1`); the path prefix `/v1` names it too.',
  'X-Request-Id': 'The id of this request: the caller\'s `X-Request-Id` if it sent a valid one, else a new one. Quote it when reporting a problem.',
  'RateLimit-Policy': 'The policy that counted this request (IETF draft), e.g. `"per-minute";q=300;w=60`.',
  RateLimit: 'What is left of that policy (IETF draft): remaining requests `r` and seconds to the reset `t`.',
  'Retry-After': 'Seconds to wait before the next attempt.',
  'Idempotent-Replayed': '`true` when this is the stored first response to an earlier request with the same `Idempotency-Key` and body.',
  Location: 'The URL of the created resource.',
  ETag: 'Version of the representation; send it back in `If-None-Match` to get `304` while it is unchanged.',
  'Cache-Control': 'How long the answer may be cached.',
  'WWW-Authenticate': 'The authentication challenge: which credentials to send and where the resource metadata (RFC 9728) is.',
} as const;
export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/** The headers every response carries, errors included. */
export const COMMON_RESPONSE_HEADERS = ['API-Version', 'X-Request-Id', 'RateLimit-Policy', 'RateLimit'] as const satisfies readonly ResponseHeader[];

export const OPERATION_TAGS = {
  Catalog: 'Printable base products and their prices',
  Shops: 'The public merch shops',
  'Shop requests': 'Requests for a new merch shop, and their stored status',
  Quotes: 'Exact prices for products and quantities, stored for a shop request to name',
  Credentials: 'Free self-serve API keys and who they belong to',
  OAuth: 'OAuth 2.0 client credentials: tokens, registration and metadata',
  MCP: 'The Model Context Protocol endpoint',
  Meta: 'Documents for agents and developers',
  Assets: 'Images and icons the documents and catalog link to',
} as const;
export type OperationTag = keyof typeof OPERATION_TAGS;

export interface OperationResponse {
  description: string;
  /** Media type to schema; no content for `202`/`304`. */
  content?: Record<string, ZodType>;
}

export interface OperationDef {
  id: string;
  /** `operation`: a public operation of the specification, in OpenAPI; `route`: served, but not an API operation. */
  kind: 'operation' | 'route';
  method: HttpMethod;
  /** Further methods the gateway routes to the same service (the MCP transport's GET and DELETE); not in OpenAPI. */
  alsoMethods?: readonly HttpMethod[];
  /** OpenAPI form: literal segments, `{param}`, or a trailing `/*` for a prefix (routes only). */
  path: string;
  service: OperationService;
  auth: OperationAuth;
  scope?: Scope;
  /** True when a repeat with the same `Idempotency-Key` and body replays the first response. */
  idempotent: boolean;
  sandbox: SandboxForm;
  tag: OperationTag;
  summary: string;
  description: string;
  request?: {
    query?: z.ZodObject;
    params?: z.ZodObject;
    headers?: z.ZodObject;
    /** Media type to schema. */
    body?: Record<string, ZodType>;
  };
  /** Success answers by status. */
  responses: Record<number, OperationResponse>;
  /** Error answers by status, each an error envelope. */
  errors: Record<number, string>;
  /** Headers this operation's answers send besides the common ones, by status (`*` for every answer). */
  headers: Partial<Record<number | '*', readonly ResponseHeader[]>>;
  /** Its entry in the service document: link name and title (the summary when left out). */
  link?: { rel: string; title?: string };
}

/** The 503 of an operation whose data store or credential check did not answer. */
export const SERVICE_UNAVAILABLE =
  'Briefly unavailable (`service_unavailable`): a data store or the credential check did not answer. Retry after `Retry-After` seconds.';

/** The optional `Idempotency-Key` request header; each use describes what a repeat gets. */
const idempotencyHeader = (description: string) =>
  z.object({ 'Idempotency-Key': z.string().min(1).max(255).optional().openapi({ description }) });

const IdempotencyHeader = idempotencyHeader(
  `Same key and body within ${LIMITS.idempotencyWindowSeconds / 3600} h replays the first response (\`Idempotent-Replayed: true\`).`,
);

/** POST /v1/keys: a retry is safe, yet its secrets are shown once, so a repeat of a finished creation is refused, never replayed. */
const CredentialIdempotencyHeader = idempotencyHeader(
  `A retry after a failure (5xx, a dropped connection) with the same key and body within ${LIMITS.idempotencyWindowSeconds / 3600} h never creates a second set. Once the \`201\` was given, a repeat gets \`409 idempotency_key_reused\`: the secrets are shown once only, so keep the first answer.`,
);

const FreeForm = z.record(z.string(), z.unknown());
const JsonRpc = z.union([FreeForm, z.array(FreeForm)]);
const json = (schema: ZodType) => ({ 'application/json': schema });

/** A document served as JSON, and as Markdown on `Accept: text/markdown`. */
function documentOperation<const Id extends string>(
  id: Id,
  path: string,
  summary: string,
  description: string,
  link: OperationDef['link'],
): OperationDef & { id: Id; kind: 'operation' } {
  return {
    id,
    kind: 'operation',
    method: 'GET',
    path,
    service: 'docs',
    auth: 'none',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Meta',
    summary,
    description,
    responses: { 200: { description: summary, content: { 'application/json': FreeForm, 'text/markdown': z.string() } } },
    errors: {},
    headers: { 200: ['ETag', 'Cache-Control'] },
    link,
  };
}

/** A route the gateway serves that is not an API operation of the specification. */
function route<const Id extends string>(
  def: Omit<OperationDef, 'id' | 'kind' | 'idempotent' | 'errors' | 'headers' | 'responses'> & { id: Id } & Partial<Pick<OperationDef, 'responses'>>,
): OperationDef & { id: Id; kind: 'route' } {
  return { kind: 'route', idempotent: false, errors: {}, headers: {}, responses: {}, ...def };
}

const tokenBackoff =
  `Token requests for this \`client_id\` are paused after ${LIMITS.tokenFailuresBeforeBackoff} wrong client secrets in a row; ` +
  `each further wrong secret doubles the pause (${LIMITS.tokenBackoffBaseSeconds} s up to ${LIMITS.tokenBackoffMaxSeconds / 60} min), a success ends the series. ` +
  'Also the anonymous per-minute limit.';

/**
 * The table. Order matters to the gateway, whose first matching route wins:
 * a more specific prefix comes before a shorter one.
 */
export const OPERATIONS = [
  {
    id: 'listProducts',
    kind: 'operation',
    method: 'GET',
    path: '/v1/products',
    service: 'catalog',
    auth: 'open',
    scope: 'catalog:read',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Catalog',
    summary: 'List printable base products',
    description:
      `Searches and pages the catalog (\`limit\` 1–${LIMITS.listProductsLimitMax}, default ${LIMITS.listProductsLimitDefault}). Every term of \`q\` must match; the best matches come first (a term in the title, then in the type, the tags, the description; whole words before parts of words), equal ones in catalog order. Prices are gross EUR incl. VAT unless a field is named \`netto\`.`,
    request: { query: ProductListQuery },
    responses: {
      200: { description: 'Products', content: json(ProductList) },
      304: { description: 'Not modified (If-None-Match)' },
    },
    errors: { 400: 'A query parameter breaks its bound', 502: 'Catalog source unavailable' },
    headers: { 200: ['ETag', 'Cache-Control'], 304: ['ETag'] },
    link: { rel: 'products', title: 'List and search printable base products' },
  },
  {
    id: 'getProduct',
    kind: 'operation',
    method: 'GET',
    path: '/v1/products/{handle}',
    service: 'catalog',
    auth: 'open',
    scope: 'catalog:read',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Catalog',
    summary: 'One product with from-price and volume tiers',
    description: 'One product by its handle from `GET /v1/products`: colors, sizes, decoration, the printed from-price and the volume tiers.',
    request: { params: ProductHandleParams },
    responses: {
      200: { description: 'Product', content: json(Product) },
      304: { description: 'Not modified (If-None-Match)' },
    },
    errors: { 400: 'Invalid handle', 404: 'Product not found (`product_not_found`)' },
    headers: { 200: ['ETag', 'Cache-Control'], 304: ['ETag'] },
    link: { rel: 'product', title: 'One product by handle' },
  },
  {
    id: 'getPricing',
    kind: 'operation',
    method: 'GET',
    path: '/v1/pricing',
    service: 'catalog',
    auth: 'open',
    scope: 'catalog:read',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Catalog',
    summary: 'Pricing overview: free setup, no minimum order',
    description: 'What a merch shop costs: shop setup is free, the minimum order quantity is 1, and every product with its printed from-price.',
    responses: { 200: { description: 'Pricing', content: json(Pricing) } },
    errors: {},
    headers: { 200: ['ETag', 'Cache-Control'] },
    link: { rel: 'pricing', title: 'Pricing overview' },
  },
  // The more specific image path first: the first matching route wins.
  route({
    id: 'getShopImage',
    method: 'GET',
    path: '/images/shops/*',
    service: 'shops',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Assets',
    summary: 'Image of a public shop',
    description: 'The image a public shop links to in `GET /v1/shops`.',
  }),
  route({
    id: 'getProductImage',
    method: 'GET',
    path: '/images/*',
    service: 'catalog',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Assets',
    summary: 'Image of a product',
    description: 'The image a product links to in its `image` field.',
  }),
  {
    id: 'listPublicShops',
    kind: 'operation',
    method: 'GET',
    path: '/v1/shops',
    service: 'shops',
    auth: 'open',
    scope: 'shops:read',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Shops',
    summary: 'Public merch shops',
    description: 'The merch shops that chose to be listed publicly, optionally of one category.',
    request: { query: ShopListQuery },
    responses: { 200: { description: 'Shops', content: json(ShopList) } },
    errors: { 400: 'Unknown category' },
    headers: { 200: ['ETag', 'Cache-Control'] },
    link: { rel: 'shops', title: 'Public merch shops' },
  },
  {
    id: 'createShopRequest',
    kind: 'operation',
    method: 'POST',
    path: '/v1/shop-requests',
    service: 'requests',
    auth: 'required',
    scope: 'requests:write',
    idempotent: true,
    sandbox: 'mirrored',
    tag: 'Shop requests',
    summary: 'Request a new merch shop for an organization',
    description:
      'Validates and stores a shop request. A live request reaches the operator team, which e-mails the contact person; on the sandbox, or with a sandbox key, it is stored and never sent. Send an `Idempotency-Key` so a retry cannot create a second request.',
    request: { headers: IdempotencyHeader, body: json(ShopRequestBody) },
    responses: { 201: { description: 'Received', content: json(ShopRequestResult) } },
    errors: {
      400: 'Malformed JSON',
      401: 'Missing credentials',
      403: 'Scope `requests:write` missing',
      409: 'Idempotency key reused with another body',
      422: 'Validation failed; `error.fields` lists each problem',
      429: 'Daily limit reached',
      502: 'Intake unavailable',
    },
    headers: { '*': ['Idempotent-Replayed'], 201: ['Location'], 401: ['WWW-Authenticate'], 403: ['WWW-Authenticate'] },
    link: { rel: 'create_shop_request', title: 'Submit a shop request for an organization' },
  },
  {
    id: 'getShopRequest',
    kind: 'operation',
    method: 'GET',
    path: '/v1/shop-requests/{id}',
    service: 'requests',
    auth: 'required',
    scope: 'requests:read',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Shop requests',
    summary: 'Stored status of a shop request created with the same credentials',
    description: 'Reads back a shop request by the `id` its `201` answer returned. Only the credentials that created it may read it.',
    request: { params: ShopRequestIdParams },
    responses: { 200: { description: 'Shop request', content: json(ShopRequestResult) } },
    errors: { 400: 'Malformed id', 401: 'Missing credentials', 403: 'Created with different credentials', 404: 'Unknown id' },
    headers: { 401: ['WWW-Authenticate'], 403: ['WWW-Authenticate'] },
    link: { rel: 'shop_request', title: 'Stored status of a shop request' },
  },
  {
    id: 'createQuote',
    kind: 'operation',
    method: 'POST',
    path: '/v1/quotes',
    service: 'requests',
    auth: 'open',
    scope: 'catalog:read',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Quotes',
    summary: 'Exact prices for products and quantities',
    description:
      'Prices lines of product, quantity and decoration for an organization type, so no caller computes a price: the volume tier that applies, unit and line prices net and gross, totals with 19 % VAT, and warnings. ' +
      '`schule` and `verein` (b2c) pay the gross from-price per piece whatever the quantity; `unternehmen`, `handwerk` and `gastro` (b2b) pay the net price of the highest tier whose `ab` is not above the quantity, plus VAT. ' +
      `The quote is stored for ${LIMITS.quoteLifetimeDays} days with the catalog's prices of this moment; read it back with its \`quote_id\`, or name it in a shop request. ` +
      'The same request while the catalog\'s prices are unchanged answers the quote already stored, with its `quote_id`, and counts nothing. ' +
      `Each UTC day stores at most ${LIMITS.quotesPerPrincipalPerDay} quotes per principal and ${LIMITS.quotesPerAddressPerDay} per client address, credentials or none.`,
    request: { body: json(QuoteBody) },
    responses: { 201: { description: 'Quote', content: json(Quote) } },
    errors: {
      400: 'Malformed JSON',
      403: 'Credentials without the scope `catalog:read`',
      422: 'Validation failed; `error.fields` lists each problem, an unknown product on `lines.N.product`',
      429: 'Daily quote limit reached for these credentials or this address; the count starts again at UTC midnight',
      502: 'Catalog unavailable',
      503: SERVICE_UNAVAILABLE,
    },
    headers: { 201: ['Location'], 403: ['WWW-Authenticate'] },
    link: { rel: 'create_quote', title: 'Exact prices for products and quantities (a stored quote)' },
  },
  {
    id: 'getQuote',
    kind: 'operation',
    method: 'GET',
    path: '/v1/quotes/{id}',
    service: 'requests',
    auth: 'open',
    scope: 'catalog:read',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Quotes',
    summary: 'A stored quote',
    description: `Reads back a quote by the \`quote_id\` its \`201\` answer returned, with the prices it was made with, until it expires (${LIMITS.quoteLifetimeDays} days). Whoever has the id may read it.`,
    request: { params: QuoteIdParams },
    responses: { 200: { description: 'Quote', content: json(Quote) } },
    errors: { 400: 'Malformed id', 403: 'Credentials without the scope `catalog:read`', 404: 'Unknown or expired quote (`quote_not_found`)', 503: SERVICE_UNAVAILABLE },
    headers: { 403: ['WWW-Authenticate'] },
    link: { rel: 'quote', title: 'A stored quote by id' },
  },
  documentOperation(
    'getVersioningPolicy',
    '/v1/versioning',
    'Versioning policy',
    'How the API changes: additive-only within v1, deprecations announced ahead with `Deprecation` and `Sunset` headers.',
    { rel: 'versioning' },
  ),
  documentOperation(
    'getOnboarding',
    '/v1/onboarding',
    'Onboarding: limits, credentials, OAuth, sandbox',
    'Everything needed before the first call: free-tier limits, how to create credentials, OAuth endpoints, scopes, the sandbox and the calls that need no credentials.',
    { rel: 'onboarding', title: 'Onboarding: free-tier limits, credentials, OAuth, sandbox' },
  ),
  documentOperation(
    'getKeyOnboarding',
    '/v1/keys',
    'How to create credentials (same document as /v1/onboarding)',
    'The onboarding document, at the path where credentials are created with `POST`.',
    { rel: 'key_onboarding', title: 'How to create credentials (same document as onboarding)' },
  ),
  {
    id: 'createApiKey',
    kind: 'operation',
    method: 'POST',
    path: '/v1/keys',
    service: 'identity',
    auth: 'none',
    // A repeat is refused, not replayed: the secrets are shown once.
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Credentials',
    summary: 'Create free self-serve credentials',
    description:
      'Creates an API key with a client id and secret that belong to it (same scopes, mode and limits). The secrets are shown once. Free, no approval.',
    request: { headers: CredentialIdempotencyHeader, body: json(ApiKeyRequest) },
    responses: { 201: { description: 'Credentials (secrets shown once)', content: json(ApiKey) } },
    errors: {
      400: 'Invalid request',
      409: 'The Idempotency-Key was used already: for another body, or for a creation that finished (its secrets are not shown again)',
      429: 'Too many keys from this address today',
      503: SERVICE_UNAVAILABLE,
    },
    headers: { '*': ['Idempotent-Replayed'], 201: ['Cache-Control'] },
    link: { rel: 'create_key', title: 'Create free credentials' },
  },
  {
    id: 'getCurrentPrincipal',
    kind: 'operation',
    method: 'GET',
    path: '/v1/me',
    service: 'identity',
    auth: 'required',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Credentials',
    summary: 'Who the credentials belong to',
    description: 'The principal behind the credentials sent: key or client id, mode, scopes and limits.',
    responses: { 200: { description: 'Principal', content: json(Principal) } },
    errors: { 401: 'Missing or invalid credentials' },
    headers: { 401: ['WWW-Authenticate'] },
    link: { rel: 'me' },
  },
  {
    id: 'exportPersonalData',
    kind: 'operation',
    method: 'GET',
    path: '/v1/me/data',
    service: 'identity',
    auth: 'required',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Credentials',
    summary: 'Everything stored about the caller (right of access)',
    description:
      'For a person who confirmed an e-mail address on the consent page: every shop request (live and sandbox) whose contact or submitter is that address, with its stored fields; the OAuth grants; the credentials whose contact is the address; the consent records. ' +
      'For an API key or its client credentials: the credentials record (without the hashes of its secrets) and the shop requests it made.',
    responses: { 200: { description: 'The stored data', content: json(PersonalDataExport) } },
    errors: { 401: 'Missing or invalid credentials', 503: SERVICE_UNAVAILABLE },
    headers: { 200: ['Cache-Control'], 401: ['WWW-Authenticate'] },
    link: { rel: 'my_data', title: 'Export what is stored about you' },
  },
  {
    id: 'erasePersonalData',
    kind: 'operation',
    method: 'DELETE',
    path: '/v1/me/data',
    service: 'identity',
    auth: 'required',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Credentials',
    summary: 'Erase the caller\'s personal data (right to erasure)',
    description:
      'For a person: erases contact names, e-mail addresses, phone numbers, free text and logo URLs of every shop request tied to the confirmed address, and the internal copies; keeps organization, products, dates, ids and status. ' +
      'Revokes every grant and refresh token of the address (the token used here stops working), deletes credentials whose only contact is the address and drops queued e-mails to it. ' +
      'For an API key: erases its shop requests\' personal data and deletes the credentials. Repeating it is harmless.',
    responses: { 204: { description: 'Erased' } },
    errors: { 401: 'Missing or invalid credentials', 503: SERVICE_UNAVAILABLE },
    headers: { 401: ['WWW-Authenticate'] },
    link: { rel: 'my_data_erasure', title: 'Erase what is stored about you' },
  },
  {
    id: 'issueAccessToken',
    kind: 'operation',
    method: 'POST',
    path: '/oauth/token',
    service: 'identity',
    auth: 'none',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'OAuth',
    summary: 'OAuth 2.0 token endpoint: client credentials, authorization code and refresh token grants',
    description:
      'Exchanges a client id and secret (in the body or with HTTP Basic) for a short-lived access token. `scope` may narrow the granted scopes; `resource` (RFC 8707) limits the token to the REST API or the MCP endpoint. ' +
      'Public clients of agent hosts use `authorization_code` (with `code`, `redirect_uri`, `code_verifier` and `client_id`, no secret) after the consent page, and `refresh_token`, which returns a new refresh token every time.',
    request: { body: { 'application/x-www-form-urlencoded': TokenRequest, 'application/json': TokenRequest } },
    responses: {
      200: {
        description:
          'An RFC 9068 access token (`typ: at+jwt`, ES256): `iss`, `sub` and `client_id` (the client id), `aud` (the requested `resource`, else the base URL), `scope`, `iat`, `exp`, `jti`.',
        content: json(TokenResponse),
      },
    },
    errors: {
      400:
        '`invalid_request`, `invalid_scope`, `unsupported_grant_type`, or `invalid_target` (RFC 8707: a `resource` this API does not serve, or more than one). ' +
        "The RFC 6749 code is `error.code` of the API's envelope, the description `error.message`.",
      401: '`invalid_client`. Carries `WWW-Authenticate: Basic realm="msa"` only when the client tried HTTP Basic; a failed `client_secret_post` gets no challenge.',
      429: tokenBackoff,
      503: SERVICE_UNAVAILABLE,
    },
    headers: { 200: ['Cache-Control'], 401: ['WWW-Authenticate'] },
    link: { rel: 'oauth_token', title: 'OAuth token endpoint (client credentials, authorization code, refresh token)' },
  },
  {
    id: 'registerClient',
    kind: 'operation',
    method: 'POST',
    path: '/oauth/register',
    service: 'identity',
    auth: 'none',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'OAuth',
    summary: 'Dynamic client registration (RFC 7591)',
    description: 'Registers an OAuth client for the client credentials grant; equivalent to `POST /v1/keys`, answered in RFC 7591 form.',
    request: { body: json(ClientRegistrationRequest) },
    responses: { 201: { description: 'Registered client', content: json(ClientRegistration) } },
    errors: { 400: '`invalid_client_metadata`', 429: 'Too many registrations from this address today', 503: SERVICE_UNAVAILABLE },
    headers: { 201: ['Cache-Control'] },
    link: { rel: 'oauth_register', title: 'OAuth 2.0 dynamic client registration (RFC 7591)' },
  },
  route({
    id: 'authorize',
    method: 'GET',
    path: '/oauth/authorize',
    service: 'identity',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'OAuth',
    summary: 'OAuth 2.1 authorization endpoint (authorization code with PKCE)',
    description:
      'Where an agent host sends the person: `response_type=code`, `client_id` (a Client ID Metadata Document URL or a registered id), `redirect_uri`, `code_challenge` with `code_challenge_method=S256`, `state`, `scope` and `resource` (RFC 8707). Answers with the consent page. ' +
      'An invalid request gets our error page (the error envelope for `Accept: application/json`); only a client the operator verified is sent back to its `redirect_uri` with the error, and a person\'s denial always is (`access_denied`). ' +
      '429 with `Retry-After` when too many authorization pages are in flight, or when this address already waits for a client metadata document or asked for too many new ones this hour.',
    responses: { 200: { description: 'The consent page (HTML)', content: { 'text/html': z.string() } } },
  }),
  route({
    id: 'consent',
    method: 'GET',
    alsoMethods: ['POST'],
    path: '/oauth/consent/{interaction}',
    service: 'identity',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'OAuth',
    summary: 'The consent page: confirm the e-mail address, choose live or sandbox, approve',
    description:
      'A web page for people, reached from the authorization endpoint; works without JavaScript, in German and English. It names where the approval goes and marks a name the client declared itself. ' +
      '429 with `Retry-After` past the code e-mails of an address or a mailbox, past the new people of an address a day, or once a mailbox has sent too many wrong codes today.',
    responses: { 200: { description: 'HTML', content: { 'text/html': z.string() } } },
  }),
  route({
    id: 'revokeToken',
    method: 'POST',
    path: '/oauth/revoke',
    service: 'identity',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'OAuth',
    summary: 'Token revocation (RFC 7009)',
    description:
      'Revokes the grant of a refresh token or of an access token from the authorization code grant, and with it every token of that grant. `token` (and `token_type_hint`), `client_id` of the public client the token was issued to. ' +
      '200 for a revoked token and for a token this server did not issue; 400 `unsupported_token_type` for a client-credentials access token (it has no grant; it expires within the hour); 400 `invalid_request` when `client_id` is not the token\'s client.',
    link: { rel: 'oauth_revoke', title: 'OAuth token revocation (RFC 7009)' },
  }),
  route({
    id: 'createKeyFromPortal',
    method: 'POST',
    path: '/developers/keys',
    service: 'identity',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Credentials',
    summary: 'The developer portal\'s form to create credentials',
    description: 'The same as `POST /v1/keys`, from an HTML form (`application/x-www-form-urlencoded`); answers with a page that shows the key once.',
    responses: { 201: { description: 'HTML', content: { 'text/html': z.string() } } },
  }),
  route({
    id: 'authorizationServerMetadata',
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    service: 'identity',
    auth: 'none',
    sandbox: 'path-insertion',
    tag: 'OAuth',
    summary: 'Authorization server metadata',
    description: 'RFC 8414 metadata of the issuer: token and registration endpoints, grant types, scopes.',
    link: { rel: 'oauth_authorization_server_metadata', title: 'OAuth authorization server metadata (RFC 8414)' },
  }),
  route({
    id: 'protectedResourceMetadata',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    service: 'identity',
    auth: 'none',
    sandbox: 'path-insertion',
    tag: 'OAuth',
    summary: 'Protected resource metadata',
    description: 'RFC 9728 metadata of the REST API as a protected resource.',
    link: { rel: 'oauth_protected_resource_metadata', title: 'OAuth protected resource metadata (RFC 9728)' },
  }),
  route({
    id: 'mcpProtectedResourceMetadata',
    method: 'GET',
    path: '/.well-known/oauth-protected-resource/mcp',
    service: 'identity',
    auth: 'none',
    sandbox: 'path-insertion',
    tag: 'OAuth',
    summary: 'Protected resource metadata of the MCP endpoint',
    description: 'RFC 9728 metadata of the MCP endpoint as a protected resource.',
  }),
  route({
    id: 'jwks',
    method: 'GET',
    path: '/.well-known/jwks.json',
    service: 'identity',
    auth: 'none',
    sandbox: 'shared',
    tag: 'OAuth',
    summary: 'Public keys that sign access tokens',
    description: 'The JSON Web Key Set that verifies access tokens of both environments.',
    link: { rel: 'jwks' },
  }),
  {
    id: 'mcpEndpoint',
    kind: 'operation',
    method: 'POST',
    alsoMethods: ['GET', 'DELETE'],
    path: '/mcp',
    service: 'mcp',
    auth: 'open',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'MCP',
    summary: 'MCP over Streamable HTTP (JSON-RPC 2.0)',
    description:
      'The Model Context Protocol endpoint: stateless Streamable HTTP with JSON responses. Authorization is per tool: reading the catalog, prices and shops needs no credentials; `create_shop_request` needs credentials with `requests:write` and `get_shop_request` with `requests:read`, and without them each answers `401` with a Bearer challenge naming this resource\'s metadata and the scope, which OAuth-capable MCP hosts follow. On `/sandbox/mcp` both also work without credentials: a shop request made there is never sent, and the client address reads back its own.',
    request: { body: json(JsonRpc) },
    responses: {
      200: { description: 'JSON-RPC response', content: json(JsonRpc) },
      202: { description: 'Notification accepted' },
    },
    errors: {
      401: 'A tool that needs authorization was called without credentials (a JSON-RPC error with the `unauthorized` envelope in `data`), or the credentials are invalid',
      403: 'Origin or host not allowed, or credentials without the scope the tool needs (`insufficient_scope`)',
    },
    headers: { 401: ['WWW-Authenticate'], 403: ['WWW-Authenticate'] },
    link: { rel: 'mcp', title: 'MCP endpoint (Streamable HTTP, JSON-RPC 2.0)' },
  },
  documentOperation(
    'getServiceDocument',
    '/',
    'Service document with links to every resource',
    'The entry point: a link to every resource of the API for the environment it was read on, with method, credentials and scope.',
    { rel: 'self', title: 'This service document (Markdown with Accept: text/markdown)' },
  ),
  {
    id: 'getOpenApi',
    kind: 'operation',
    method: 'GET',
    path: '/openapi.json',
    service: 'docs',
    auth: 'none',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Meta',
    summary: 'This OpenAPI 3.1 document',
    description: 'This document; with `Accept: text/markdown`, a Markdown list of the operations.',
    responses: { 200: { description: 'OpenAPI document', content: json(FreeForm) } },
    errors: {},
    headers: { 200: ['ETag', 'Cache-Control'] },
    link: { rel: 'openapi', title: 'OpenAPI 3.1 document' },
  },
  {
    id: 'getAgentInstructions',
    kind: 'operation',
    method: 'GET',
    path: '/llms.txt',
    service: 'docs',
    auth: 'none',
    idempotent: false,
    sandbox: 'mirrored',
    tag: 'Meta',
    summary: 'Instructions for agents (Markdown)',
    description: 'What the API offers and how to start, in the llmstxt.org shape.',
    responses: { 200: { description: 'Markdown', content: { 'text/markdown': z.string() } } },
    errors: {},
    headers: { 200: ['ETag', 'Cache-Control'] },
    link: { rel: 'llms_txt', title: 'Agent instructions (llms.txt)' },
  },
  route({
    id: 'getAgentsMd',
    method: 'GET',
    path: '/agents.md',
    service: 'docs',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Meta',
    summary: 'How an agent should act with this API',
    description: 'Sandbox first, idempotency keys, looking up handles, confirming with the human, errors, limits and data protection.',
    responses: { 200: { description: 'Markdown', content: { 'text/markdown': z.string() } } },
    link: { rel: 'agents_md' },
  }),
  route({
    id: 'getDeveloperPortal',
    method: 'GET',
    path: '/developers',
    service: 'docs',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Meta',
    summary: 'Developer portal',
    description: 'Quick start, authentication, sandbox, limits, headers, MCP clients and every error code.',
    responses: { 200: { description: 'HTML', content: { 'text/html': z.string(), 'text/markdown': z.string() } } },
    link: { rel: 'developer_portal', title: 'Developer portal (HTML; Markdown with Accept: text/markdown)' },
  }),
  // The legal pages: German or English by Accept-Language, Markdown with Accept: text/markdown.
  route({
    id: 'getPrivacyNotice',
    method: 'GET',
    path: '/privacy',
    service: 'docs',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Meta',
    summary: 'Privacy notice',
    description: 'Who is responsible for the personal data the service stores, what it stores, why, for how long, who receives it, and how to see, correct or erase it (GDPR Art. 13).',
    responses: { 200: { description: 'HTML', content: { 'text/html': z.string(), 'text/markdown': z.string() } } },
    link: { rel: 'privacy_policy', title: 'Privacy notice (HTML, German or English; Markdown with Accept: text/markdown)' },
  }),
  route({
    id: 'getTermsOfUse',
    method: 'GET',
    path: '/terms',
    service: 'docs',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Meta',
    summary: 'Terms of use',
    description: 'The terms of using the API, the MCP endpoint and the sandbox.',
    responses: { 200: { description: 'HTML', content: { 'text/html': z.string(), 'text/markdown': z.string() } } },
    link: { rel: 'terms_of_service', title: 'Terms of use (HTML, German or English; Markdown with Accept: text/markdown)' },
  }),
  route({
    id: 'getImprint',
    method: 'GET',
    path: '/imprint',
    service: 'docs',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'Meta',
    summary: 'Imprint',
    description: 'Who operates the service and how to reach them (§ 5 DDG).',
    responses: { 200: { description: 'HTML', content: { 'text/html': z.string(), 'text/markdown': z.string() } } },
    link: { rel: 'imprint', title: 'Imprint (HTML, German or English; Markdown with Accept: text/markdown)' },
  }),
  // Not an API operation: browsers ask for it on every portal visit, and a 404 is a console error.
  route({
    id: 'getFavicon',
    method: 'GET',
    path: '/favicon.ico',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'Assets',
    summary: 'Icon of the developer portal',
    description: 'The icon browsers ask for on every portal visit.',
  }),
  // Discovery: the well-known documents crawlers, agents, scanners and the MCP
  // Registry probe. The documents router renders each one from this table and
  // the contracts; `shared` ones describe production and sandbox together.
  route({
    id: 'getRobotsTxt',
    method: 'GET',
    path: '/robots.txt',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'Meta',
    summary: 'Crawling rules (RFC 9309) with content signals',
    description:
      'Every crawler, AI crawlers named, may read the API documents; the sign-in and consent pages are not for crawling. `Content-Signal` and the IETF aipref `Content-Usage` say how the content may be used; the last line names the sitemap.',
    responses: { 200: { description: 'Plain text', content: { 'text/plain': z.string() } } },
  }),
  route({
    id: 'getSitemap',
    method: 'GET',
    path: '/sitemap.xml',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'Meta',
    summary: 'Sitemap of the documents, production and sandbox',
    description: 'The developer portal, llms.txt, agents.md, the OpenAPI document, the versioning policy and onboarding, for the base and the sandbox.',
    responses: { 200: { description: 'XML', content: { 'application/xml': z.string() } } },
    link: { rel: 'sitemap' },
  }),
  route({
    id: 'getApiCatalog',
    method: 'GET',
    path: '/.well-known/api-catalog',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'Meta',
    summary: 'API catalog (RFC 9727)',
    description: 'A linkset with one anchor for the API and one for the sandbox, each with its OpenAPI document (`service-desc`), documentation (`service-doc`) and policies and metadata (`service-meta`).',
    responses: { 200: { description: 'Linkset', content: { 'application/linkset+json': FreeForm } } },
    link: { rel: 'api_catalog', title: 'API catalog (RFC 9727)' },
  }),
  route({
    id: 'getMcpServerCard',
    method: 'GET',
    path: '/mcp/server-card',
    service: 'docs',
    auth: 'none',
    sandbox: 'mirrored',
    tag: 'MCP',
    summary: 'MCP server card',
    description:
      'Name, version, description and the remotes (`/mcp` and `/sandbox/mcp`, with their protocol versions and the optional, secret `Authorization` header) of the MCP endpoint, before connecting; the sandbox card lists the sandbox remote first.',
    responses: { 200: { description: 'Server card', content: { 'application/mcp-server-card+json': FreeForm } } },
    link: { rel: 'mcp_server_card', title: 'MCP server card (read before connecting)' },
  }),
  route({
    id: 'getWellKnownMcpServerCard',
    method: 'GET',
    path: '/.well-known/mcp/server-card.json',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'MCP',
    summary: 'MCP server card at the well-known path',
    description: 'The production server card, where scanners and MCP clients look for it.',
    responses: { 200: { description: 'Server card', content: { 'application/json': FreeForm } } },
  }),
  route({
    id: 'getWellKnownMcpJson',
    method: 'GET',
    path: '/.well-known/mcp.json',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'MCP',
    summary: 'MCP server card at the earlier well-known path',
    description: 'The production server card, at the path of the earlier server card proposal.',
    responses: { 200: { description: 'Server card', content: { 'application/json': FreeForm } } },
  }),
  route({
    id: 'getMcpCatalog',
    method: 'GET',
    path: '/.well-known/mcp/catalog.json',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'MCP',
    summary: 'Catalog of the MCP server cards',
    description: 'One entry per server card: production and sandbox.',
    responses: { 200: { description: 'Catalog', content: { 'application/json': FreeForm } } },
  }),
  route({
    id: 'getAiCatalog',
    method: 'GET',
    path: '/.well-known/ai-catalog.json',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'MCP',
    summary: 'AI catalog of the MCP server cards',
    description: 'The same catalog at the path where the current server card draft has clients look.',
    responses: { 200: { description: 'Catalog', content: { 'application/ai-catalog+json': FreeForm } } },
  }),
  route({
    id: 'getMcpRegistryServer',
    method: 'GET',
    path: '/server.json',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'MCP',
    summary: 'Entry of the official MCP Registry (server.json)',
    description: 'What the operator publishes to the MCP Registry for this deployment (schema 2025-12-11): the server card\'s name, version and remotes.',
    responses: { 200: { description: 'server.json', content: { 'application/json': FreeForm } } },
    link: { rel: 'mcp_registry_server', title: 'MCP Registry entry (server.json)' },
  }),
  route({
    id: 'getMcpRegistryAuth',
    method: 'GET',
    path: '/.well-known/mcp-registry-auth',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'MCP',
    summary: 'Domain proof for the MCP Registry',
    description: 'The proof record (`v=MCPv1; k=…; p=…`) with which the operator claims this domain\'s namespace in the MCP Registry; `404` while the deployment has none.',
    responses: { 200: { description: 'Plain text', content: { 'text/plain': z.string() } } },
  }),
  route({
    id: 'getOpenaiAppsChallenge',
    method: 'GET',
    path: '/.well-known/openai-apps-challenge',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'MCP',
    summary: 'Domain verification for the ChatGPT apps directory',
    description: 'The token OpenAI\'s app submission shows the operator, which proves that this domain serves the app; `404` while the deployment has none.',
    responses: { 200: { description: 'Plain text', content: { 'text/plain': z.string() } } },
  }),
  route({
    id: 'getAgentSkills',
    method: 'GET',
    path: '/.well-known/agent-skills/index.json',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'Meta',
    summary: 'Index of agent skills',
    description: 'The skills an agent can load for this API (agent skills discovery 0.2.0), each with the SHA-256 digest of its SKILL.md.',
    responses: { 200: { description: 'Index', content: { 'application/json': FreeForm } } },
    link: { rel: 'agent_skills', title: 'Agent skills index' },
  }),
  route({
    id: 'getAgentSkill',
    method: 'GET',
    path: '/.well-known/agent-skills/{name}/SKILL.md',
    service: 'docs',
    auth: 'none',
    sandbox: 'shared',
    tag: 'Meta',
    summary: 'One agent skill (SKILL.md)',
    description: 'Instructions for one task, with YAML front matter naming and describing the skill.',
    request: { params: z.object({ name: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/).max(64) }) },
    responses: { 200: { description: 'Markdown', content: { 'text/markdown': z.string() } } },
  }),
] as const satisfies readonly OperationDef[];

/** Every id the table knows, API operations and other routes alike. */
export type RouteId = (typeof OPERATIONS)[number]['id'];

/** The public operations of spec section 4, by operationId. */
export type OperationId = Extract<(typeof OPERATIONS)[number], { kind: 'operation' }>['id'];

export const OPERATION_IDS: readonly OperationId[] = OPERATIONS.filter((o) => o.kind === 'operation').map((o) => o.id as OperationId);

/** The operations a table lists as public API operations, in table order. */
export function publicOperations(table: readonly OperationDef[] = OPERATIONS): OperationDef[] {
  return table.filter((o) => o.kind === 'operation');
}
