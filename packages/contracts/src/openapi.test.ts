import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { OPERATION_IDS, buildOpenApiDocument, type OpenApiDocument, type OperationId } from './openapi.js';

const BASE_URL = 'https://api.example.de';

/** Spec section 4: every operationId with its method and path. */
const SPEC_OPERATIONS: Record<Exclude<OperationId, keyof typeof ADDED_OPERATIONS>, [method: string, path: string]> = {
  listProducts: ['get', '/v1/products'],
  getProduct: ['get', '/v1/products/{handle}'],
  getPricing: ['get', '/v1/pricing'],
  listPublicShops: ['get', '/v1/shops'],
  createShopRequest: ['post', '/v1/shop-requests'],
  getShopRequest: ['get', '/v1/shop-requests/{id}'],
  getVersioningPolicy: ['get', '/v1/versioning'],
  getOnboarding: ['get', '/v1/onboarding'],
  getKeyOnboarding: ['get', '/v1/keys'],
  createApiKey: ['post', '/v1/keys'],
  getCurrentPrincipal: ['get', '/v1/me'],
  issueAccessToken: ['post', '/oauth/token'],
  registerClient: ['post', '/oauth/register'],
  mcpEndpoint: ['post', '/mcp'],
  getOpenApi: ['get', '/openapi.json'],
  getAgentInstructions: ['get', '/llms.txt'],
  getServiceDocument: ['get', '/'],
};

/** Added within v1 beyond spec section 4 (DESIGN "Quotes", "Personal data"). */
const ADDED_OPERATIONS = {
  createQuote: ['post', '/v1/quotes'],
  getQuote: ['get', '/v1/quotes/{id}'],
  exportPersonalData: ['get', '/v1/me/data'],
  erasePersonalData: ['delete', '/v1/me/data'],
} as const satisfies Partial<Record<OperationId, [method: string, path: string]>>;

const ALL_OPERATIONS: Record<OperationId, readonly [method: string, path: string]> = { ...SPEC_OPERATIONS, ...ADDED_OPERATIONS };

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Record<string, unknown> }[];
  [key: string]: unknown;
}

function operations(doc: OpenApiDocument): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, op]) => ({ method, path, op: op as Operation })),
  );
}

function operation(doc: OpenApiDocument, id: OperationId): Operation {
  const found = operations(doc).find(({ op }) => op.operationId === id);
  if (!found) throw new Error(`operation ${id} missing`);
  return found.op;
}

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument({ publicBaseUrl: BASE_URL });

  it('lists the 17 operations of spec section 4 and the quotes and personal data operations added since', () => {
    expect([...OPERATION_IDS].sort()).toEqual(Object.keys(ALL_OPERATIONS).sort());
    expect(Object.keys(SPEC_OPERATIONS)).toHaveLength(17);
    expect(OPERATION_IDS).toHaveLength(21);
  });

  it.each(Object.entries(ALL_OPERATIONS))('has %s exactly once, at %j', (id, [method, path]) => {
    const matches = operations(doc).filter(({ op }) => op.operationId === id);

    expect(matches.map(({ method: m, path: p }) => [m, p])).toEqual([[method, path]]);
  });

  it('has no operation without an operationId of the specification', () => {
    const ids = operations(doc).map(({ op }) => op.operationId);

    expect(ids.sort()).toEqual([...OPERATION_IDS].sort());
  });

  it('validates as an OpenAPI 3.1 document', async () => {
    const validator = new Validator();

    const result = await validator.validate(structuredClone(doc));

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is checked by a validator that does reject a broken document', async () => {
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, { responses: unknown }>> };
    broken.paths['/v1/products']!.get!.responses = 'none';

    const result = await new Validator().validate(broken);

    expect(result.valid).toBe(false);
  });

  it('documents the failed-authentication 429 on operations that read credentials, not on those that never do', () => {
    const responses = (id: OperationId) => operation(doc, id).responses as Record<string, { description: string; headers?: Record<string, unknown> }>;

    expect(responses('getCurrentPrincipal')['429']!.description).toContain('failed authentications');
    expect(responses('listProducts')['429']!.description).toContain('failed authentications');
    expect(responses('createApiKey')['429']!.description).not.toContain('failed authentications');
    expect(responses('getCurrentPrincipal')['429']!.headers).toHaveProperty('Retry-After');
  });

  it('documents the per-client back-off of the token endpoint as a 429', () => {
    const tooMany = (operation(doc, 'issueAccessToken').responses as Record<string, { description: string }>)['429']!;

    expect(tooMany.description).toContain('wrong client secrets');
    expect(tooMany.description).toContain('doubles');
  });

  it('documents a retryable 503 with Retry-After where credentials or stored data are checked', () => {
    const responses = (id: OperationId) => operation(doc, id).responses as Record<string, { headers?: Record<string, unknown> }>;

    expect(responses('createShopRequest')['503']!.headers).toHaveProperty('Retry-After');
    expect(responses('createApiKey')['503']).toBeDefined();
    expect(responses('getVersioningPolicy')['503']).toBeUndefined();
  });

  it('documents the headers every response carries, as references to components.headers', () => {
    const headers = (doc.components as { headers: Record<string, { description: string }> }).headers;
    const responses = operations(doc).flatMap(({ op }) => Object.values(op.responses as Record<string, { headers?: Record<string, { $ref: string }> }>));

    expect(responses.length).toBeGreaterThan(50);
    for (const response of responses) {
      for (const name of ['API-Version', 'X-Request-Id', 'RateLimit-Policy', 'RateLimit']) {
        expect(response.headers?.[name]).toEqual({ $ref: `#/components/headers/${name}` });
      }
    }
    expect(Object.keys(headers)).toEqual(expect.arrayContaining(['API-Version', 'X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Retry-After', 'Idempotent-Replayed']));
  });

  it('documents Location and Idempotent-Replayed on a created shop request, and Retry-After on every 429', () => {
    const responses = (id: OperationId) => operation(doc, id).responses as Record<string, { headers?: Record<string, unknown> }>;

    expect(Object.keys(responses('createShopRequest')['201']!.headers ?? {})).toEqual(expect.arrayContaining(['Location', 'Idempotent-Replayed']));
    expect(responses('createApiKey')['201']!.headers).toHaveProperty('Idempotent-Replayed');
    for (const id of OPERATION_IDS) expect(responses(id)['429']!.headers).toHaveProperty('Retry-After');
  });

  it('describes every operation, names its tags at the top and carries a license', () => {
    const tags = (doc.tags as { name: string; description: string }[]).map((t) => t.name);

    for (const { op } of operations(doc)) {
      expect(op.description).toEqual(expect.any(String));
      for (const tag of op.tags as string[]) expect(tags).toContain(tag);
    }
    expect(doc.info.license).toMatchObject({ name: expect.any(String) });
  });

  it('lists production and the sandbox as servers', () => {
    expect(doc.servers?.map((s) => s.url)).toEqual([BASE_URL, `${BASE_URL}/sandbox`]);
  });

  it('requires oauth2 scope requests:write for createShopRequest and never allows anonymous calls', () => {
    const security = operation(doc, 'createShopRequest').security ?? [];

    expect(security).toContainEqual({ oauth2: ['requests:write'] });
    expect(security).not.toContainEqual({});
    expect(security.length).toBeGreaterThan(0);
  });

  it('requires oauth2 scope requests:read for getShopRequest', () => {
    expect(operation(doc, 'getShopRequest').security).toContainEqual({ oauth2: ['requests:read'] });
  });

  it('lets listProducts be called with or without credentials', () => {
    expect(operation(doc, 'listProducts').security).toContainEqual({});
  });

  it('declares no security for getServiceDocument', () => {
    expect(operation(doc, 'getServiceDocument').security).toEqual([]);
  });

  it('points the oauth2 client credentials flow at the token endpoint with every scope', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, { flows?: Record<string, { tokenUrl: string; scopes: object }> }> })
      .securitySchemes;
    const flow = schemes.oauth2?.flows?.clientCredentials;

    expect(flow?.tokenUrl).toBe(`${BASE_URL}/oauth/token`);
    expect(Object.keys(flow?.scopes ?? {}).sort()).toEqual(['catalog:read', 'requests:read', 'requests:write', 'shops:read']);
  });

  it('documents the listProducts limit bounds and default', () => {
    const limit = operation(doc, 'listProducts').parameters?.find((p) => p.name === 'limit');

    expect(limit?.in).toBe('query');
    expect(limit?.schema).toMatchObject({ minimum: 1, maximum: 250, default: 50 });
  });

  it('documents the handle path parameter with its pattern', () => {
    const handle = operation(doc, 'getProduct').parameters?.find((p) => p.name === 'handle');

    expect(handle).toMatchObject({ in: 'path', required: true, schema: { pattern: '^[a-z0-9-]+$' } });
  });

  describe('component schemas', () => {
    type Schema = { required?: string[]; properties?: Record<string, Record<string, unknown>>; additionalProperties?: unknown };
    const schema = (name: string) => (doc.components as { schemas: Record<string, Schema> }).schemas[name]!;

    it.each([
      ['ShopRequest', ['organization', 'shop_name']],
      ['Organization', ['contact_name', 'email', 'name', 'type']],
      ['RequestedProduct', ['product']],
      ['ApiKeyRequest', ['email', 'name']],
      ['TokenRequest', ['grant_type']],
    ])('requires of %s only the fields spec section 2 marks (req)', (name, required) => {
      expect([...(schema(name).required ?? [])].sort()).toEqual(required);
    });

    it.each([
      ['Product', ['currency', 'handle', 'title', 'url']],
      ['ProductList', ['products', 'total']],
      ['ShopRequestResult', ['id', 'sandbox', 'status']],
      ['TokenResponse', ['access_token', 'expires_in', 'token_type']],
    ])('promises in %s at least the fields spec section 2 marks (req)', (name, required) => {
      expect(schema(name).required).toEqual(expect.arrayContaining(required));
    });

    it.each(['ShopRequest', 'Organization', 'RequestedProduct', 'Design', 'ApiKeyRequest'])(
      'declares that %s accepts no unknown fields',
      (name) => {
        expect(schema(name).additionalProperties).toBe(false);
      },
    );

    it('carries the bounds of spec section 8', () => {
      const shopRequest = schema('ShopRequest').properties!;
      const design = schema('Design').properties!;

      expect(shopRequest.shop_name).toMatchObject({ maxLength: 80 });
      expect(shopRequest.products).toMatchObject({ maxItems: 20 });
      expect(shopRequest.notes).toMatchObject({ maxLength: 2000 });
      expect(shopRequest.occasion).toMatchObject({ maxLength: 120 });
      expect(shopRequest.team_size).toMatchObject({ minimum: 1 });
      expect(design.width_cm).toMatchObject({ minimum: 1, maximum: 40 });
      expect(design.comment).toMatchObject({ maxLength: 500 });
      expect(schema('RequestedProduct').properties!.comment).toMatchObject({ maxLength: 500 });
      expect(schema('ApiKeyRequest').properties!.name).toMatchObject({ minLength: 2, maxLength: 80 });
    });

    it('spells the organization types as spec section 2 does', () => {
      expect(schema('Organization').properties!.type).toMatchObject({
        enum: ['schule', 'verein', 'unternehmen', 'handwerk', 'gastro'],
      });
    });
  });

  it('puts the base URL into every absolute link', () => {
    const other = buildOpenApiDocument({ publicBaseUrl: 'https://other.example.de' });

    expect(JSON.stringify(other)).not.toContain(BASE_URL);
  });
});
