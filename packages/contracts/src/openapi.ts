// Builds the OpenAPI 3.1 document from the same zod schemas the services
// validate with, so the document cannot drift from what the API accepts.
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { API_VERSION, LIMITS, SCOPES, SCOPE_DESCRIPTIONS, type Scope } from './common.js';
import { ErrorEnvelope } from './errors.js';
import { Pricing, Product, ProductHandleParams, ProductList, ProductListQuery } from './catalog.js';
import { ShopList, ShopListQuery } from './shops.js';
import { ShopRequestBody, ShopRequestIdParams, ShopRequestResult } from './shop-requests.js';
import {
  ApiKey,
  ApiKeyRequest,
  ClientRegistration,
  ClientRegistrationRequest,
  Principal,
  TokenRequest,
  TokenResponse,
} from './identity.js';
import { z } from './zod.js';

/** The 17 operations of spec §4, by operationId. */
export const OPERATION_IDS = [
  'listProducts',
  'getProduct',
  'getPricing',
  'listPublicShops',
  'createShopRequest',
  'getShopRequest',
  'getVersioningPolicy',
  'getOnboarding',
  'getKeyOnboarding',
  'createApiKey',
  'getCurrentPrincipal',
  'issueAccessToken',
  'registerClient',
  'mcpEndpoint',
  'getOpenApi',
  'getAgentInstructions',
  'getServiceDocument',
] as const;
export type OperationId = (typeof OPERATION_IDS)[number];

type Security = 'open' | 'none' | Scope | 'any';

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ErrorEnvelope } },
});

const rateLimitHeaders = z.object({
  'API-Version': z.string().openapi({ example: API_VERSION }),
  RateLimit: z.string().optional().openapi({ example: '"default";r=299;t=60' }),
  'RateLimit-Policy': z.string().optional().openapi({ example: '"default";q=300;w=60' }),
});

const IdempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .openapi({ description: 'Same key and body within 24 h replays the first response (`Idempotent-Replayed: true`).' }),
});

const FreeForm = z.record(z.string(), z.unknown());

function securityFor(security: Security): RouteConfig['security'] {
  if (security === 'none') return [];
  if (security === 'open') return [{}, { apiKey: [] }, { bearer: [] }, { oauth2: [] }];
  if (security === 'any') return [{ apiKey: [] }, { bearer: [] }, { oauth2: [] }];
  return [{ apiKey: [] }, { bearer: [] }, { oauth2: [security] }];
}

export interface OpenApiOptions {
  publicBaseUrl: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  servers?: { url: string; description?: string }[];
  paths?: Record<string, Record<string, { operationId?: string; [key: string]: unknown }>>;
  components?: Record<string, unknown>;
  [key: string]: unknown;
}

export function buildOpenApiDocument({ publicBaseUrl }: OpenApiOptions): OpenApiDocument {
  const registry = new OpenAPIRegistry();

  registry.registerComponent('securitySchemes', 'apiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'An API key from POST /v1/keys. `Authorization: Bearer <API_KEY>` works too.',
  });
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key or an access token from POST /oauth/token.',
  });
  registry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    flows: {
      clientCredentials: {
        tokenUrl: `${publicBaseUrl}/oauth/token`,
        scopes: Object.fromEntries(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]])),
      },
    },
  });

  const op = (
    operationId: OperationId,
    config: Omit<RouteConfig, 'operationId' | 'security'> & { security: Security },
  ) => {
    const { security, ...rest } = config;
    registry.registerPath({ ...rest, operationId, security: securityFor(security) });
  };

  op('listProducts', {
    method: 'get',
    path: '/v1/products',
    tags: ['Catalog'],
    summary: 'List printable base products',
    security: 'open',
    request: { query: ProductListQuery },
    responses: {
      200: { description: 'Products', headers: rateLimitHeaders, content: { 'application/json': { schema: ProductList } } },
      304: { description: 'Not modified (If-None-Match)' },
      400: errorResponse('A query parameter breaks its bound'),
      429: errorResponse('Rate limit exceeded'),
      502: errorResponse('Catalog source unavailable'),
    },
  });
  op('getProduct', {
    method: 'get',
    path: '/v1/products/{handle}',
    tags: ['Catalog'],
    summary: 'One product with from-price and volume tiers',
    security: 'open',
    request: { params: ProductHandleParams },
    responses: {
      200: { description: 'Product', content: { 'application/json': { schema: Product } } },
      304: { description: 'Not modified (If-None-Match)' },
      400: errorResponse('Invalid handle'),
      404: errorResponse('Product not found (`product_not_found`)'),
      429: errorResponse('Rate limit exceeded'),
    },
  });
  op('getPricing', {
    method: 'get',
    path: '/v1/pricing',
    tags: ['Catalog'],
    summary: 'Pricing overview: free setup, no minimum order',
    security: 'open',
    responses: {
      200: { description: 'Pricing', content: { 'application/json': { schema: Pricing } } },
      429: errorResponse('Rate limit exceeded'),
    },
  });
  op('listPublicShops', {
    method: 'get',
    path: '/v1/shops',
    tags: ['Shops'],
    summary: 'Public merch shops',
    security: 'open',
    request: { query: ShopListQuery },
    responses: {
      200: { description: 'Shops', content: { 'application/json': { schema: ShopList } } },
      400: errorResponse('Unknown category'),
      429: errorResponse('Rate limit exceeded'),
    },
  });
  op('createShopRequest', {
    method: 'post',
    path: '/v1/shop-requests',
    tags: ['Shop requests'],
    summary: 'Request a new merch shop for an organization',
    security: 'requests:write',
    request: {
      headers: IdempotencyHeader,
      body: { required: true, content: { 'application/json': { schema: ShopRequestBody } } },
    },
    responses: {
      201: { description: 'Received', content: { 'application/json': { schema: ShopRequestResult } } },
      400: errorResponse('Malformed JSON'),
      401: errorResponse('Missing credentials'),
      403: errorResponse('Scope `requests:write` missing'),
      409: errorResponse('Idempotency key reused with another body'),
      422: errorResponse('Validation failed; `error.fields` lists each problem'),
      429: errorResponse('Daily limit reached'),
      502: errorResponse('Intake unavailable'),
    },
  });
  op('getShopRequest', {
    method: 'get',
    path: '/v1/shop-requests/{id}',
    tags: ['Shop requests'],
    summary: 'Stored status of a shop request created with the same credentials',
    security: 'requests:read',
    request: { params: ShopRequestIdParams },
    responses: {
      200: { description: 'Shop request', content: { 'application/json': { schema: ShopRequestResult } } },
      400: errorResponse('Malformed id'),
      401: errorResponse('Missing credentials'),
      403: errorResponse('Created with different credentials'),
      404: errorResponse('Unknown id'),
    },
  });
  const doc = (operationId: OperationId, path: string, summary: string, markdown: boolean) =>
    op(operationId, {
      method: 'get',
      path,
      tags: ['Meta'],
      summary,
      security: 'none',
      responses: {
        200: {
          description: summary,
          content: {
            'application/json': { schema: FreeForm },
            ...(markdown ? { 'text/markdown': { schema: z.string() } } : {}),
          },
        },
      },
    });
  doc('getVersioningPolicy', '/v1/versioning', 'Versioning policy', true);
  doc('getOnboarding', '/v1/onboarding', 'Onboarding: limits, credentials, OAuth, sandbox', true);
  doc('getKeyOnboarding', '/v1/keys', 'How to create credentials (same document as /v1/onboarding)', true);
  op('createApiKey', {
    method: 'post',
    path: '/v1/keys',
    tags: ['Credentials'],
    summary: 'Create free self-serve credentials',
    security: 'none',
    request: {
      headers: IdempotencyHeader,
      body: { required: true, content: { 'application/json': { schema: ApiKeyRequest } } },
    },
    responses: {
      201: { description: 'Credentials (secrets shown once)', content: { 'application/json': { schema: ApiKey } } },
      400: errorResponse('Invalid request'),
      429: errorResponse('Too many keys from this address today'),
    },
  });
  op('getCurrentPrincipal', {
    method: 'get',
    path: '/v1/me',
    tags: ['Credentials'],
    summary: 'Who the credentials belong to',
    security: 'any',
    responses: {
      200: { description: 'Principal', content: { 'application/json': { schema: Principal } } },
      401: errorResponse('Missing or invalid credentials'),
    },
  });
  op('issueAccessToken', {
    method: 'post',
    path: '/oauth/token',
    tags: ['OAuth'],
    summary: 'OAuth 2.0 client credentials grant',
    security: 'none',
    request: {
      body: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': { schema: TokenRequest },
          'application/json': { schema: TokenRequest },
        },
      },
    },
    responses: {
      200: {
        description: 'An RFC 9068 access token (`typ: at+jwt`, ES256): `iss`, `sub` and `client_id` (the client id), `aud` (the requested `resource`, else the base URL), `scope`, `iat`, `exp`, `jti`.',
        content: { 'application/json': { schema: TokenResponse } },
      },
      400: errorResponse(
        '`invalid_request`, `invalid_scope`, `unsupported_grant_type`, or `invalid_target` (RFC 8707: a `resource` this API does not serve, or more than one). ' +
          'The RFC 6749 code is `error.code` of the API\'s envelope, the description `error.message`.',
      ),
      401: errorResponse(
        '`invalid_client`. Carries `WWW-Authenticate: Basic realm="msa"` only when the client tried HTTP Basic; a failed `client_secret_post` gets no challenge.',
      ),
      429: errorResponse(
        `Token requests for this \`client_id\` are paused after ${LIMITS.tokenFailuresBeforeBackoff} wrong client secrets in a row; ` +
          `each further wrong secret doubles the pause (${LIMITS.tokenBackoffBaseSeconds} s up to ${LIMITS.tokenBackoffMaxSeconds / 60} min), a success ends the series. ` +
          'Also the anonymous per-minute limit.',
      ),
    },
  });
  op('registerClient', {
    method: 'post',
    path: '/oauth/register',
    tags: ['OAuth'],
    summary: 'Dynamic client registration (RFC 7591)',
    security: 'none',
    request: { body: { required: true, content: { 'application/json': { schema: ClientRegistrationRequest } } } },
    responses: {
      201: { description: 'Registered client', content: { 'application/json': { schema: ClientRegistration } } },
      400: errorResponse('`invalid_client_metadata`'),
      429: errorResponse('Too many registrations from this address today'),
    },
  });
  op('mcpEndpoint', {
    method: 'post',
    path: '/mcp',
    tags: ['MCP'],
    summary: 'MCP over Streamable HTTP (JSON-RPC 2.0)',
    security: 'open',
    request: { body: { required: true, content: { 'application/json': { schema: z.union([FreeForm, z.array(FreeForm)]) } } } },
    responses: {
      200: { description: 'JSON-RPC response', content: { 'application/json': { schema: z.union([FreeForm, z.array(FreeForm)]) } } },
      202: { description: 'Notification accepted' },
      403: errorResponse('Origin not allowed'),
    },
  });
  op('getOpenApi', {
    method: 'get',
    path: '/openapi.json',
    tags: ['Meta'],
    summary: 'This OpenAPI 3.1 document',
    security: 'none',
    responses: { 200: { description: 'OpenAPI document', content: { 'application/json': { schema: FreeForm } } } },
  });
  op('getAgentInstructions', {
    method: 'get',
    path: '/llms.txt',
    tags: ['Meta'],
    summary: 'Instructions for agents (Markdown)',
    security: 'none',
    responses: { 200: { description: 'Markdown', content: { 'text/markdown': { schema: z.string() } } } },
  });
  doc('getServiceDocument', '/', 'Service document with links to every resource', true);

  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Merch-Shop Agent API',
      version: `${API_VERSION}.0.0`,
      description:
        'Read the catalog and prices of printable base products, list public merch shops, get free credentials, and request a free branded merch shop for a school, club, company, craft business or restaurant in Germany or Austria. Prices are gross incl. 19 % VAT in EUR unless a field is named `netto`.',
      contact: { url: `${publicBaseUrl}/developers` },
    },
    servers: [
      { url: publicBaseUrl, description: 'Production' },
      { url: `${publicBaseUrl}/sandbox`, description: 'Sandbox: shop requests are stored, never sent' },
    ],
    externalDocs: { url: `${publicBaseUrl}/developers`, description: 'Developer portal' },
  });
  return addRateLimitResponses(addExamples(document as unknown as OpenApiDocument, publicBaseUrl));
}

type MediaTypes = Record<string, { examples?: Record<string, { summary?: string; value: unknown }> }>;
interface ExampleTarget {
  requestBody?: { content?: MediaTypes };
  responses?: Record<string, { content?: MediaTypes }>;
}

/**
 * Worked examples on the operations agents call most, so a reader of the
 * document sees a real request and answer next to each schema. The values
 * follow the schemas; a test validates the whole document.
 */
function addExamples(doc: OpenApiDocument, publicBaseUrl: string): OpenApiDocument {
  const op = (path: string, method: string) => (doc.paths?.[path]?.[method] ?? {}) as ExampleTarget;
  const setRequest = (path: string, method: string, type: string, examples: Record<string, { summary?: string; value: unknown }>) => {
    const media = op(path, method).requestBody?.content?.[type];
    if (media) media.examples = examples;
  };
  const setResponse = (path: string, method: string, status: string, examples: Record<string, { summary?: string; value: unknown }>) => {
    const media = op(path, method).responses?.[status]?.content?.['application/json'];
    if (media) media.examples = examples;
  };
  const error = (code: string, status: number, message: string, hint: string, fields?: { field: string; message: string }[]) => ({
    error: {
      code,
      message,
      status,
      hint,
      docs: `${publicBaseUrl}/developers#${code}`,
      openapi: `${publicBaseUrl}/openapi.json`,
      ...(fields ? { fields } : {}),
    },
  });

  const product = {
    handle: 'bio-t-shirt-unisex',
    title: 'Bio T-Shirt Unisex',
    url: `${publicBaseUrl}/v1/products/bio-t-shirt-unisex`,
    currency: 'EUR',
    type: 'T-Shirt',
    available: true,
    tags: ['bio', 'unisex', 'gots'],
    blank_price_from: 12.9,
    printed_price_from: 19.9,
    quantity_prices_dtf: {
      tiers: [
        { ab: 1, brutto: 19.9, netto: 16.72 },
        { ab: 10, brutto: 17.9, netto: 15.04 },
        { ab: 25, brutto: 15.9, netto: 13.36 },
      ],
    },
    decoration: ['dtf', 'stick'],
    colors: ['Schwarz', 'Weiß', 'Navy'],
    sizes: ['S', 'M', 'L', 'XL'],
    image: null,
    description: 'Classic T-shirt of 100 % organic cotton, GOTS certified.',
  };
  setResponse('/v1/products', 'get', '200', {
    search: {
      summary: 'GET /v1/products?q=shirt&limit=1',
      value: { generated_at: '2026-01-15T09:30:00Z', total: 9, limit: 1, offset: 0, products: [product] },
    },
  });
  setResponse('/v1/products/{handle}', 'get', '200', { product: { value: product } });
  setResponse('/v1/products/{handle}', 'get', '404', {
    unknown: {
      value: error('product_not_found', 404, "No product with handle 'golden-shirt'.", 'GET /v1/products lists every handle.'),
    },
  });

  const shopRequest = {
    organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Mustermann', email: 'erika@example.org' },
    shop_name: 'TSV Musterstadt Fanshop',
    products: [
      {
        product: 'bio-t-shirt-unisex',
        colors: ['Schwarz'],
        decoration: 'dtf',
        designs: [{ position: 'Brust Mitte', width_cm: 25, logo_url: 'https://example.org/logo.png' }],
      },
    ],
    team_size: 40,
    group_order_until: '2026-03-31',
  };
  setRequest('/v1/shop-requests', 'post', 'application/json', {
    club: { summary: 'A club shop with one printed product', value: shopRequest },
    design_service: {
      summary: 'A company shop the operator designs',
      value: {
        organization: { name: 'Bäckerei Korn GmbH', type: 'handwerk', contact_name: 'Max Korn', email: 'max@example.org' },
        shop_name: 'Bäckerei Korn Teamwear',
        design_service: true,
        private_shop: true,
        notes: 'Aprons and polos for 12 employees.',
      },
    },
  });
  const result = {
    id: 'req_3f9a1c2b7d4e6f80',
    status: 'received',
    sandbox: true,
    created_at: '2026-01-15T09:31:12Z',
    organization: 'TSV Musterstadt',
    shop_name: 'TSV Musterstadt Fanshop',
    shop_type: 'b2c',
    products: [{ product: 'Bio T-Shirt Unisex', handle: 'bio-t-shirt-unisex', colors: ['Schwarz'], decoration: 'dtf', designs: 1, estimated_price_from: 19.9 }],
    next_steps: `Sandbox request: validated and stored; nothing was sent to the operator. Read it back with GET ${publicBaseUrl}/sandbox/v1/shop-requests/req_3f9a1c2b7d4e6f80.`,
    warnings: [],
    upstream: null,
  };
  setResponse('/v1/shop-requests', 'post', '201', { sandbox: { value: result } });
  setResponse('/v1/shop-requests', 'post', '422', {
    invalid: {
      value: error('validation_failed', 422, 'The shop request has 2 problems; see error.fields.', 'Fix each entry of `error.fields` and send the request again.', [
        { field: 'organization.email', message: 'must be a valid e-mail address' },
        { field: 'products.0.designs.0.width_cm', message: 'Too big: expected number to be <=40' },
      ]),
    },
  });
  setResponse('/v1/shop-requests', 'post', '429', {
    daily_limit: {
      value: error('rate_limited', 429, 'The daily limit of 5 live shop requests is reached; it resets at 2026-01-16T00:00:00.000Z.', 'Wait the number of seconds in `Retry-After`; credentials raise the per-minute limit.'),
    },
  });
  setResponse('/v1/shop-requests/{id}', 'get', '200', { stored: { value: result } });

  setRequest('/v1/keys', 'post', 'application/json', {
    sandbox: { summary: 'Sandbox credentials with every scope', value: { name: 'my-agent', email: 'dev@example.org', mode: 'sandbox' } },
    live_reader: { summary: 'Live credentials that can only read', value: { name: 'catalog-reader', email: 'dev@example.org', mode: 'live', scopes: ['catalog:read', 'shops:read'] } },
  });
  setResponse('/v1/keys', 'post', '201', {
    created: {
      value: {
        api_key: 'msa_test_<SECRET>',
        client_id: 'msa_client_<ID>',
        client_secret: '<SECRET>',
        mode: 'sandbox',
        scopes: ['catalog:read', 'shops:read', 'requests:write', 'requests:read'],
        tier: 'free',
        limits: {
          requests_per_minute: 300,
          live_shop_requests_per_day: 5,
          sandbox_shop_requests_per_day: 200,
          access_token_lifetime_seconds: 3600,
          daily_limits_reset: '00:00 UTC',
        },
        created_at: '2026-01-15T09:00:00Z',
      },
    },
  });
  setRequest('/oauth/token', 'post', 'application/x-www-form-urlencoded', {
    client_credentials: { value: { grant_type: 'client_credentials', client_id: 'msa_client_<ID>', client_secret: '<SECRET>', scope: 'catalog:read requests:write' } },
  });
  setResponse('/oauth/token', 'post', '200', {
    token: { value: { access_token: '<ACCESS_TOKEN>', token_type: 'Bearer', expires_in: 3600, scope: 'catalog:read requests:write' } },
  });
  setRequest('/oauth/register', 'post', 'application/json', {
    client: { value: { client_name: 'my-agent', contacts: ['dev@example.org'], grant_types: ['client_credentials'], mode: 'sandbox' } },
  });
  setRequest('/mcp', 'post', 'application/json', {
    initialize: {
      summary: '2025-11-25 handshake',
      value: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'my-agent', version: '1.0.0' } } },
    },
    tool_call: {
      summary: 'Call a tool',
      value: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_products', arguments: { q: 'hoodie', limit: 5 } } },
    },
    batch: {
      summary: 'A batch is answered with an array',
      value: [
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
        { jsonrpc: '2.0', id: 4, method: 'resources/list' },
      ],
    },
  });
  return doc;
}

/** Operations without credentials that still need Redis, so can answer 503 during an outage. */
const USES_DATA_STORE = new Set(['createApiKey', 'issueAccessToken', 'registerClient']);

const FAILED_AUTH_NOTE =
  `Also after ${LIMITS.failedAuthPerIpPerMinute} failed authentications (unknown API key, invalid token, malformed credential) ` +
  'from one address within a minute: further calls with credentials the gateway has not already verified get 429 until the window resets.';

/**
 * The gateway limits every call per minute, documents included, so every
 * operation can answer 429; each 429 names its `Retry-After` header (spec §7).
 * Operations that read credentials also count failed authentications, and
 * can answer a retryable 503 when credentials or data cannot be checked.
 */
function addRateLimitResponses(doc: OpenApiDocument): OpenApiDocument {
  const retryAfter = {
    description: 'Seconds to wait before the next attempt.',
    schema: { type: 'integer', minimum: 1 },
  };
  const envelope = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  type Operation = { operationId?: string; security?: unknown[]; responses?: Record<string, { description?: string; headers?: Record<string, unknown> }> };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item) as Operation[]) {
      if (!op.responses) continue;
      op.responses['429'] ??= { description: 'Rate limit exceeded', content: envelope } as { headers?: Record<string, unknown> };
      const tooMany = op.responses['429']!;
      tooMany.headers = { ...tooMany.headers, 'Retry-After': retryAfter };
      const readsCredentials = (op.security?.length ?? 0) > 0;
      if (readsCredentials) tooMany.description = `${tooMany.description ?? 'Rate limit exceeded'}. ${FAILED_AUTH_NOTE}`;
      if (!readsCredentials && !USES_DATA_STORE.has(op.operationId ?? '')) continue;
      op.responses['503'] ??= {
        description: 'Briefly unavailable (`service_unavailable`): a data store or the credential check did not answer. Retry after `Retry-After` seconds.',
        content: envelope,
        headers: { 'Retry-After': retryAfter },
      } as { headers?: Record<string, unknown> };
    }
  }
  return doc;
}
