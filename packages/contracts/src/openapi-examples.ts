// Worked examples on the operations agents call most, so a reader of the
// OpenAPI document sees a real request and answer next to each schema. The
// values follow the schemas (a test validates the whole document) and the
// services' own answers (component tests in requests and identity post these
// request bodies and compare).
import { ERROR_CODES, errorDocsUrl } from './errors.js';
import { LIMITS } from './common.js';
import { apiKeyLimits } from './identity.js';
import type { OperationId } from './operations.js';

export interface Example {
  summary?: string;
  value: unknown;
}
export type Examples = Record<string, Example>;

export interface OperationExamples {
  /** By request media type. */
  request?: Record<string, Examples>;
  /** By response status; always `application/json`. */
  responses?: Record<number, Examples>;
}

interface ErrorDetail {
  fields?: { field: string; message: string }[];
  /** The hint the service gives in this case, where it says more than the code's general one. */
  hint?: string;
}

function errorExample(publicBaseUrl: string, code: keyof typeof ERROR_CODES, message: string, detail: ErrorDetail = {}) {
  const { status } = ERROR_CODES[code];
  const { fields, hint = ERROR_CODES[code].hint } = detail;
  return {
    error: {
      code,
      message,
      status,
      hint,
      docs: errorDocsUrl(publicBaseUrl, code),
      openapi: `${publicBaseUrl}/openapi.json`,
      ...(fields ? { fields } : {}),
    },
  };
}

/** The request bodies of the examples, also posted by the services' component tests. */
export const EXAMPLE_REQUESTS = {
  clubShopRequest: {
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
  },
  designServiceShopRequest: {
    organization: { name: 'Bäckerei Korn GmbH', type: 'handwerk', contact_name: 'Max Korn', email: 'max@example.org' },
    shop_name: 'Bäckerei Korn Teamwear',
    design_service: true,
    private_shop: true,
    notes: 'Aprons and polos for 12 employees.',
  },
  invalidShopRequest: {
    organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Mustermann', email: 'not-an-address' },
    shop_name: 'TSV Musterstadt Fanshop',
    products: [{ product: 'bio-t-shirt-unisex', designs: [{ position: 'Brust Mitte', width_cm: 45 }] }],
  },
  sandboxKey: { name: 'my-agent', email: 'dev@example.org', mode: 'sandbox' },
  liveReaderKey: { name: 'catalog-reader', email: 'dev@example.org', mode: 'live', scopes: ['catalog:read', 'shops:read'] },
  client: { client_name: 'my-agent', contacts: ['dev@example.org'], grant_types: ['client_credentials'], mode: 'sandbox' },
  companyQuote: { organization_type: 'unternehmen', lines: [{ product: 'bio-polo-herren', quantity: 40, decoration: 'dtf', colors: ['Navy'] }] },
  clubQuote: {
    organization_type: 'verein',
    lines: [
      { product: 'bio-t-shirt-unisex', quantity: 40, decoration: 'dtf', colors: ['Schwarz'] },
      { product: 'Bio Hoodie Unisex', quantity: 12, decoration: 'stick' },
    ],
  },
} as const;

type ErrorExample = (code: keyof typeof ERROR_CODES, message: string, detail?: ErrorDetail) => ReturnType<typeof errorExample>;
type ExamplesById = Partial<Record<OperationId, OperationExamples>>;

/** One product as the catalog lists it. */
function exampleProduct(publicBaseUrl: string) {
  return {
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
}

/** The sandbox answer to the club shop request. */
function exampleShopRequestResult(publicBaseUrl: string) {
  return {
    id: 'req_3f9a1c2b7d4e6f80',
    status: 'received',
    sandbox: true,
    created_at: '2026-01-15T09:31:12.000Z',
    organization: 'TSV Musterstadt',
    shop_name: 'TSV Musterstadt Fanshop',
    shop_type: 'b2c',
    products: [{ product: 'Bio T-Shirt Unisex', handle: 'bio-t-shirt-unisex', colors: ['Schwarz'], decoration: 'dtf', designs: 1, estimated_price_from: 19.9 }],
    next_steps:
      'Sandbox request: validated and stored; nothing was sent to the operator. ' +
      `Read it back with GET ${publicBaseUrl}/sandbox/v1/shop-requests/req_3f9a1c2b7d4e6f80. ` +
      `To submit it for real, send the same body to POST ${publicBaseUrl}/v1/shop-requests with a live key ` +
      `(create one with POST ${publicBaseUrl}/v1/keys and mode "live").`,
    warnings: [],
    upstream: null,
  };
}

/** What the embedded catalog prices the company quote at; the requests component tests compare. */
function exampleCompanyQuote() {
  return {
    quote_id: 'quo_5e0c2a9b7d1f4e38',
    organization_type: 'unternehmen',
    shop_type: 'b2b',
    currency: 'EUR',
    lines: [
      {
        product: 'Bio Poloshirt Herren',
        handle: 'bio-polo-herren',
        quantity: 40,
        decoration: 'dtf',
        tier_from: 25,
        unit_net: 21.76,
        unit_gross: 25.9,
        total_net: 870.4,
        total_gross: 1035.78,
      },
    ],
    total_net: 870.4,
    vat: 165.38,
    total_gross: 1035.78,
    created_at: '2026-01-15T09:31:12.000Z',
    expires_at: new Date(Date.parse('2026-01-15T09:31:12.000Z') + LIMITS.quoteLifetimeDays * 86_400_000).toISOString(),
    warnings: [],
  };
}

function catalogExamples(publicBaseUrl: string, error: ErrorExample): ExamplesById {
  const product = exampleProduct(publicBaseUrl);
  return {
    listProducts: {
      responses: {
        200: {
          search: {
            summary: 'GET /v1/products?q=shirt&limit=1',
            value: { generated_at: '2026-01-15T09:30:00Z', total: 9, limit: 1, offset: 0, products: [product] },
          },
        },
      },
    },
    getProduct: {
      responses: {
        200: { product: { value: product } },
        404: { unknown: { value: error('product_not_found', "No product with handle 'golden-shirt'.") } },
      },
    },
  };
}

function shopRequestExamples(publicBaseUrl: string, error: ErrorExample): ExamplesById {
  const result = exampleShopRequestResult(publicBaseUrl);
  return {
    createShopRequest: {
      request: {
        'application/json': {
          club: { summary: 'A club shop with one printed product', value: EXAMPLE_REQUESTS.clubShopRequest },
          design_service: { summary: 'A company shop the operator designs', value: EXAMPLE_REQUESTS.designServiceShopRequest },
        },
      },
      responses: {
        201: { sandbox: { value: result } },
        422: {
          invalid: {
            value: error('validation_failed', 'The shop request has 2 problems; see error.fields.', {
              fields: [
                { field: 'organization.email', message: 'must be a valid e-mail address' },
                { field: 'products.0.designs.0.width_cm', message: 'Too big: expected number to be <=40' },
              ],
            }),
          },
        },
        429: {
          daily_limit: {
            value: error(
              'rate_limited',
              `Daily limit reached: ${LIMITS.liveShopRequestsPerDay} live shop requests per day. The day resets at UTC midnight (2026-01-16T00:00:00.000Z).`,
              {
                hint:
                  'Wait the seconds in `Retry-After`; the count starts again at UTC midnight. ' +
                  `Meanwhile the sandbox accepts ${LIMITS.sandboxShopRequestsPerDay} shop requests a day.`,
              },
            ),
          },
        },
      },
    },
    getShopRequest: { responses: { 200: { stored: { value: result } } } },
  };
}

function quoteExamples(error: ErrorExample): ExamplesById {
  const companyQuote = exampleCompanyQuote();
  return {
    createQuote: {
      request: {
        'application/json': {
          company: { summary: '40 polo shirts for a company (net, volume tier)', value: EXAMPLE_REQUESTS.companyQuote },
          club: { summary: 'Shirts and embroidered hoodies for a club (gross per piece)', value: EXAMPLE_REQUESTS.clubQuote },
        },
      },
      responses: {
        201: { company: { value: companyQuote } },
        422: {
          unknown_product: {
            value: error('validation_failed', 'The quote has one problem; see error.fields.', {
              fields: [{ field: 'lines.0.product', message: "unknown product 'golden-polo'; use a handle or title listed by GET /v1/products" }],
            }),
          },
        },
      },
    },
    getQuote: {
      responses: {
        200: { stored: { value: companyQuote } },
        404: { expired: { value: error('quote_not_found', "No quote with id 'quo_5e0c2a9b7d1f4e38'; it does not exist or has expired.") } },
      },
    },
  };
}

function identityExamples(): ExamplesById {
  return {
    createApiKey: {
      request: {
        'application/json': {
          sandbox: { summary: 'Sandbox credentials with every scope', value: EXAMPLE_REQUESTS.sandboxKey },
          live_reader: { summary: 'Live credentials that can only read', value: EXAMPLE_REQUESTS.liveReaderKey },
        },
      },
      responses: {
        201: {
          created: {
            value: {
              api_key: 'msa_test_<SECRET>',
              client_id: 'msa_client_<ID>',
              client_secret: '<SECRET>',
              mode: 'sandbox',
              scopes: ['catalog:read', 'shops:read', 'requests:write', 'requests:read'],
              tier: 'free',
              limits: apiKeyLimits(),
              created_at: '2026-01-15T09:00:00Z',
            },
          },
        },
      },
    },
    issueAccessToken: {
      request: {
        'application/x-www-form-urlencoded': {
          client_credentials: {
            value: { grant_type: 'client_credentials', client_id: 'msa_client_<ID>', client_secret: '<SECRET>', scope: 'catalog:read requests:write' },
          },
        },
      },
      responses: {
        200: {
          token: {
            value: { access_token: '<ACCESS_TOKEN>', token_type: 'Bearer', expires_in: LIMITS.accessTokenLifetimeSeconds, scope: 'catalog:read requests:write' },
          },
        },
      },
    },
    registerClient: { request: { 'application/json': { client: { value: EXAMPLE_REQUESTS.client } } } },
  };
}

function mcpExamples(): ExamplesById {
  return {
    mcpEndpoint: {
      request: {
        'application/json': {
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
        },
      },
    },
  };
}

export function buildOpenApiExamples(publicBaseUrl: string): ExamplesById {
  const error: ErrorExample = (code, message, detail) => errorExample(publicBaseUrl, code, message, detail);
  return {
    ...catalogExamples(publicBaseUrl, error),
    ...shopRequestExamples(publicBaseUrl, error),
    ...quoteExamples(error),
    ...identityExamples(),
    ...mcpExamples(),
  };
}
