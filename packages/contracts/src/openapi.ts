// Builds the OpenAPI 3.1 document from the operation table and the same zod
// schemas the services validate with, so the document cannot drift from what
// the API accepts or from the routes the gateway serves.
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig, type ZodContentObject } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import { API_VERSION, LIMITS, SCOPES, SCOPE_DESCRIPTIONS } from './common.js';
import { ErrorEnvelope } from './errors.js';
import { buildOpenApiExamples, type Examples, type OperationExamples } from './openapi-examples.js';
import { PRODUCT_NAME } from './page-text.js';
import {
  COMMON_RESPONSE_HEADERS,
  OPERATIONS,
  OPERATION_TAGS,
  RESPONSE_HEADERS,
  SERVICE_UNAVAILABLE,
  publicOperations,
  type OperationDef,
  type ResponseHeader,
} from './operations.js';

export { OPERATION_IDS, type OperationId } from './operations.js';

const errorResponse = (description: string): ResponseConfig => ({
  description,
  content: { 'application/json': { schema: ErrorEnvelope } },
});

function securityFor({ auth, scope }: OperationDef): RouteConfig['security'] {
  if (auth === 'none') return [];
  if (auth === 'open') return [{}, { apiKey: [] }, { bearer: [] }, { oauth2: [] }];
  return [{ apiKey: [] }, { bearer: [] }, { oauth2: scope ? [scope] : [] }];
}

function content(media: Record<string, ZodType>, examples: Record<string, Examples> = {}): ZodContentObject {
  return Object.fromEntries(
    Object.entries(media).map(([type, schema]) => [type, { schema, ...(examples[type] ? { examples: examples[type] } : {}) }]),
  );
}

function routeConfig(op: OperationDef, examples: OperationExamples = {}): RouteConfig {
  const { query, params, headers, body } = op.request ?? {};
  const responses: Record<number, ResponseConfig> = {};
  for (const [status, response] of Object.entries(op.responses)) {
    const jsonExamples = examples.responses?.[Number(status)];
    responses[Number(status)] = {
      description: response.description,
      ...(response.content ? { content: content(response.content, jsonExamples ? { 'application/json': jsonExamples } : {}) } : {}),
    };
  }
  for (const [status, description] of Object.entries(op.errors)) {
    const errorExamples = examples.responses?.[Number(status)];
    const response = errorResponse(description);
    if (errorExamples) response.content = content({ 'application/json': ErrorEnvelope }, { 'application/json': errorExamples });
    responses[Number(status)] = response;
  }
  return {
    method: op.method.toLowerCase() as RouteConfig['method'],
    path: op.path,
    operationId: op.id,
    tags: [op.tag],
    summary: op.summary,
    description: op.description,
    security: securityFor(op),
    request: {
      ...(query ? { query } : {}),
      ...(params ? { params } : {}),
      ...(headers ? { headers } : {}),
      ...(body ? { body: { required: true, content: content(body, examples.request) } } : {}),
    },
    responses,
  };
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

/** The document for one base URL; `table` is the operation table (a test passes its own). */
export function buildOpenApiDocument({ publicBaseUrl }: OpenApiOptions, table: readonly OperationDef[] = OPERATIONS): OpenApiDocument {
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
  for (const [name, description] of Object.entries(RESPONSE_HEADERS)) {
    registry.registerComponent('headers', name, { description, schema: headerSchema(name as ResponseHeader) });
  }

  const operations = publicOperations(table);
  const examples = buildOpenApiExamples(publicBaseUrl) as Record<string, OperationExamples | undefined>;
  for (const op of operations) registry.registerPath(routeConfig(op, examples[op.id]));

  const usedTags = new Set(operations.map((op) => op.tag));
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: PRODUCT_NAME,
      version: `${API_VERSION}.0.0`,
      description:
        'Read the catalog and prices of printable base products, list public merch shops, get free credentials, and request a free branded merch shop for a school, club, company, craft business or restaurant in Germany or Austria. Prices are gross incl. 19 % VAT in EUR unless a field is named `netto`.',
      contact: { url: `${publicBaseUrl}/developers` },
      license: { name: 'Proprietary', url: `${publicBaseUrl}/developers` },
    },
    servers: [
      { url: publicBaseUrl, description: 'Production' },
      { url: `${publicBaseUrl}/sandbox`, description: 'Sandbox: shop requests are stored, never sent' },
    ],
    tags: Object.entries(OPERATION_TAGS)
      .filter(([name]) => usedTags.has(name as keyof typeof OPERATION_TAGS))
      .map(([name, description]) => ({ name, description })),
    externalDocs: { url: `${publicBaseUrl}/developers`, description: 'Developer portal' },
  });
  const doc = addRateLimitResponses(document as unknown as OpenApiDocument);
  return describeInputDefaults(addResponseHeaders(doc, operations));
}

/** Every `#/components/schemas/<name>` reachable from a value, following references. */
function reachableSchemas(value: unknown, schemas: Record<string, unknown>, seen = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) reachableSchemas(v, schemas, seen);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const name = key === '$ref' && typeof v === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(v)?.[1] : undefined;
      if (name && !seen.has(name)) {
        seen.add(name);
        reachableSchemas(schemas[name], schemas, seen);
      } else reachableSchemas(v, schemas, seen);
    }
  }
  return seen;
}

/**
 * A schema only requests use states its defaults in words, not as `default`:
 * generators such as openapi-typescript read `default` on a shared schema as
 * "always present" and would make the caller send every defaulted field. In
 * request bodies and parameters written inline the keyword stays.
 */
function describeInputDefaults(doc: OpenApiDocument): OpenApiDocument {
  const schemas = ((doc.components as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {}) as Record<string, { properties?: Record<string, Record<string, unknown>> }>;
  const operations = Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item)) as { requestBody?: unknown; parameters?: unknown; responses?: unknown }[];
  const inResponses = reachableSchemas(operations.map((op) => op.responses), schemas);
  const inRequests = reachableSchemas(operations.map((op) => [op.requestBody, op.parameters]), schemas);
  for (const name of inRequests) {
    if (inResponses.has(name)) continue;
    for (const property of Object.values(schemas[name]?.properties ?? {})) {
      if (!('default' in property)) continue;
      const said = `Default: \`${JSON.stringify(property.default)}\`.`;
      property.description = property.description ? `${String(property.description)} ${said}` : said;
      delete property.default;
    }
  }
  return doc;
}

function headerSchema(name: ResponseHeader): Record<string, unknown> {
  switch (name) {
    case 'Retry-After':
      return { type: 'integer', minimum: 1 };
    case 'Idempotent-Replayed':
      return { type: 'string', enum: ['true'] };
    case 'Location':
      return { type: 'string', format: 'uri' };
    case 'API-Version':
      return { type: 'string', example: API_VERSION };
    case 'RateLimit':
      return { type: 'string', example: '"per-minute";r=299;t=60' };
    case 'RateLimit-Policy':
      return { type: 'string', example: `"per-minute";q=${LIMITS.ratePerMinuteWithCredentials};w=60` };
    default:
      return { type: 'string' };
  }
}

type DocOperation = {
  operationId?: string;
  security?: unknown[];
  responses?: Record<string, { description?: string; content?: unknown; headers?: Record<string, unknown> }>;
};

/**
 * Names on every response the headers it carries, as references to
 * `components.headers`: the common ones, the operation's own from the table,
 * and `Retry-After` wherever a retry should wait.
 */
function addResponseHeaders(doc: OpenApiDocument, operations: readonly OperationDef[]): OpenApiDocument {
  const byId = new Map(operations.map((op) => [op.id, op]));
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item) as DocOperation[]) {
      const def = byId.get(op.operationId ?? '');
      if (!def || !op.responses) continue;
      for (const [status, response] of Object.entries(op.responses)) {
        const names = new Set<ResponseHeader>([
          ...COMMON_RESPONSE_HEADERS,
          ...(def.headers['*'] ?? []),
          ...(def.headers[Number(status)] ?? []),
          ...(status === '429' || status === '503' ? (['Retry-After'] as const) : []),
        ]);
        response.headers = Object.fromEntries([...names].map((name) => [name, { $ref: `#/components/headers/${name}` }]));
      }
    }
  }
  return doc;
}


const FAILED_AUTH_NOTE =
  `Also after ${LIMITS.failedAuthPerIpPerMinute} failed authentications (unknown API key, invalid token, malformed credential) ` +
  'from one address within a minute: further calls with credentials the gateway has not already verified get 429 until the window resets.';

/**
 * The gateway limits every call per minute, documents included, so every
 * operation can answer 429 (spec §7). Operations that read credentials also
 * count failed authentications, and can answer a retryable 503 when
 * credentials cannot be checked; one that needs a data store without reading
 * credentials lists its 503 in the table. `addResponseHeaders` names
 * `Retry-After` on both.
 */
function addRateLimitResponses(doc: OpenApiDocument): OpenApiDocument {
  const envelope = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item) as DocOperation[]) {
      if (!op.responses) continue;
      op.responses['429'] ??= { description: 'Rate limit exceeded', content: envelope };
      const tooMany = op.responses['429'];
      if ((op.security?.length ?? 0) === 0) continue;
      tooMany.description = `${tooMany.description ?? 'Rate limit exceeded'}. ${FAILED_AUTH_NOTE}`;
      op.responses['503'] ??= { description: SERVICE_UNAVAILABLE, content: envelope };
    }
  }
  return doc;
}
