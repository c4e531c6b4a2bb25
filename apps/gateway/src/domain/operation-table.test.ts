// One entry in the operation table is all it takes to add an operation: this
// test adds a made-up one to a copy of the table and finds it in every place
// that lists operations, without touching anything else.
import { OPERATIONS, buildOpenApiDocument, z, type OperationDef } from '@msa/contracts';
import {
  buildOnboarding,
  buildServiceDocument,
  renderAgentsMd,
  renderDevelopersMarkdown,
  renderHtmlPage,
  renderLlmsTxt,
  renderOpenApiMarkdown,
} from '@msa/docs';
import { describe, expect, it } from 'vitest';
import { buildRoutes, createRouteResolver, type RouteDef } from './route-table.js';

const BASE = 'https://merch.example.net';
const production = { publicBaseUrl: BASE, sandbox: false };

const getWidget: OperationDef = {
  id: 'getWidget',
  kind: 'operation',
  method: 'GET',
  path: '/v1/widgets/{name}',
  service: 'catalog',
  auth: 'open',
  scope: 'catalog:read',
  idempotent: false,
  sandbox: 'mirrored',
  tag: 'Catalog',
  summary: 'One made-up widget',
  description: 'An operation that exists only in this test.',
  request: { params: z.object({ name: z.string().min(1) }) },
  responses: { 200: { description: 'Widget', content: { 'application/json': z.object({ name: z.string() }) } } },
  errors: { 404: 'No widget of that name' },
  headers: { 200: ['ETag'] },
  link: { rel: 'widget', title: 'One widget by name' },
};
const table: readonly OperationDef[] = [...OPERATIONS, getWidget];

describe('an operation added to the operation table', () => {
  it('appears in the OpenAPI document with its method, security, responses and headers', () => {
    const doc = buildOpenApiDocument({ publicBaseUrl: BASE }, table);

    const op = doc.paths?.['/v1/widgets/{name}']?.get as { operationId: string; security: unknown[]; responses: Record<string, { headers?: object }> };
    expect(op.operationId).toBe('getWidget');
    expect(op.security).toContainEqual({});
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '404', '429', '503']));
    expect(op.responses['200']!.headers).toHaveProperty('ETag');
    expect(op.responses['404']!.headers).toHaveProperty('X-Request-Id');
  });

  it('is routed by the gateway to its service with its auth and scope', () => {
    const routes = buildRoutes(table);
    const resolve = createRouteResolver(routes as readonly RouteDef<string>[] as readonly RouteDef[]);

    expect(routes).toContainEqual({ operation: 'getWidget', method: 'GET', path: '/v1/widgets/:name', target: 'catalog', auth: 'open', scope: 'catalog:read' });
    expect(resolve('GET', '/v1/widgets/blue')).toMatchObject({ kind: 'route', route: { operation: 'getWidget', target: 'catalog' } });
    expect(resolve('POST', '/v1/widgets/blue')).toEqual({ kind: 'method_not_allowed', allowed: ['GET'] });
  });

  it('is linked from the service document, on production and on the sandbox', () => {
    const link = buildServiceDocument(production, table).links.widget;
    const sandboxLink = buildServiceDocument({ ...production, sandbox: true }, table).links.widget;

    expect(link).toEqual({
      href: `${BASE}/v1/widgets/{name}`,
      method: 'GET',
      title: 'One widget by name',
      type: 'application/json',
      auth: 'optional',
      operation_id: 'getWidget',
      scope: 'catalog:read',
      templated: true,
    });
    expect(sandboxLink?.href).toBe(`${BASE}/sandbox/v1/widgets/{name}`);
  });

  it('is a row of the endpoint tables in Markdown and HTML, and a line of llms.txt and agents.md', () => {
    const portal = renderDevelopersMarkdown(production, table);

    // A template is no address a reader can open: the portal names it without a link.
    expect(portal).toContain(`| \`GET /v1/widgets/{name}\` | One widget by name | optional (scope \`catalog:read\`) |`);
    expect(renderHtmlPage(portal, { markdownUrl: `${BASE}/developers` })).toContain('<code>GET /v1/widgets/{name}</code>');
    expect(renderOpenApiMarkdown(production, table)).toMatch(/\| `getWidget` \| `GET \/v1\/widgets\/\{name\}` \| One made-up widget \|/);
    expect(renderLlmsTxt(production, table)).toContain(`- [One made-up widget](${BASE}/v1/widgets/{name}): \`GET /v1/widgets/{name}\``);
    expect(renderAgentsMd(production, table)).toContain('`GET /v1/widgets/{name}`');
  });

  it('is listed among the calls that need no credentials when its auth is open', () => {
    const zeroAuth = buildOnboarding(production, table).zero_auth_endpoints;

    expect(zeroAuth).toContainEqual(expect.objectContaining({ method: 'GET', path: '/v1/widgets/{name}', href: `${BASE}/v1/widgets/{name}` }));
  });

  it('leaves the documents of the real table without it', () => {
    expect(JSON.stringify(buildOpenApiDocument({ publicBaseUrl: BASE }))).not.toContain('getWidget');
    expect(renderOpenApiMarkdown(production)).not.toContain('getWidget');
    expect(renderDevelopersMarkdown(production)).not.toContain('/v1/widgets');
  });
});
