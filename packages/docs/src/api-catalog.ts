// The RFC 9727 API catalog and the RFC 8288 Link header fields that point at
// it, built from the operation table: an agent that reads only headers or
// only /.well-known/ finds the OpenAPI document, the documentation and the
// policies of both environments.
import { OPERATIONS, type OperationDef, type RouteId } from '@msa/contracts';
import { docUrls, operationHref, requireOperation, type DocContext, type DocUrls } from './context.js';

/** RFC 9727 §4.2: the profile that says a linkset is an API catalog. */
export const API_CATALOG_PROFILE = 'https://www.rfc-editor.org/info/rfc9727';
export const API_CATALOG_TYPE = `application/linkset+json; profile="${API_CATALOG_PROFILE}"`;

/** The media type of the OpenAPI document (IANA), for `type` hints. */
export const OPENAPI_TYPE = 'application/vnd.oai.openapi+json';

export interface LinkTarget {
  href: string;
  type?: string;
  title?: string;
}

export interface ApiCatalog {
  linkset: Array<{ anchor: string } & Record<'service-desc' | 'service-doc' | 'service-meta', LinkTarget[]>>;
}

const href = (u: DocUrls, table: readonly OperationDef[], id: RouteId) => operationHref(u, requireOperation(table, id));

function anchorFor(u: DocUrls, table: readonly OperationDef[]): ApiCatalog['linkset'][number] {
  return {
    anchor: u.base,
    'service-desc': [{ href: href(u, table, 'getOpenApi'), type: OPENAPI_TYPE, title: 'OpenAPI 3.1 document' }],
    'service-doc': [
      { href: href(u, table, 'getDeveloperPortal'), type: 'text/html', title: 'Developer portal' },
      { href: href(u, table, 'getAgentInstructions'), type: 'text/markdown', title: 'Agent instructions (llms.txt)' },
      { href: href(u, table, 'getAgentsMd'), type: 'text/markdown', title: 'How an agent should act (agents.md)' },
    ],
    'service-meta': [
      { href: href(u, table, 'getVersioningPolicy'), type: 'application/json', title: 'Versioning policy' },
      { href: href(u, table, 'getOnboarding'), type: 'application/json', title: 'Onboarding: limits, credentials, OAuth, sandbox' },
      { href: href(u, table, 'protectedResourceMetadata'), type: 'application/json', title: 'OAuth protected resource metadata (RFC 9728)' },
      { href: href(u, table, 'getMcpServerCard'), type: 'application/mcp-server-card+json', title: 'MCP server card' },
    ],
  };
}

/** `/.well-known/api-catalog`: one anchor for the API, one for the sandbox. */
export function buildApiCatalog(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): ApiCatalog {
  return {
    linkset: [anchorFor(docUrls({ ...ctx, sandbox: false }), table), anchorFor(docUrls({ ...ctx, sandbox: true }), table)],
  };
}

function linkValue({ href: target, type, title }: LinkTarget, rel: string): string {
  return `<${target}>; rel="${rel}"${type ? `; type="${type}"` : ''}${title ? `; title="${title}"` : ''}`;
}

/**
 * The Link field value (RFC 8288) of the entry points `/` and `/developers`:
 * the OpenAPI document, the portal, the API catalog, the agent instructions,
 * and `alternate` for this page in its other form (Markdown, or the default).
 */
export function entryPointLinks(ctx: DocContext, self: { url: string; alternateType: string }, table: readonly OperationDef[] = OPERATIONS): string {
  const u = docUrls(ctx);
  return [
    linkValue({ href: href(u, table, 'getOpenApi'), type: OPENAPI_TYPE }, 'service-desc'),
    linkValue({ href: href(u, table, 'getDeveloperPortal'), type: 'text/html' }, 'service-doc'),
    linkValue({ href: href(u, table, 'getApiCatalog'), type: 'application/linkset+json' }, 'api-catalog'),
    linkValue({ href: href(u, table, 'getAgentInstructions'), type: 'text/markdown' }, 'describedby'),
    linkValue({ href: self.url, type: self.alternateType }, 'alternate'),
  ].join(', ');
}

/** RFC 9727 §2: the catalog names itself in a Link field, so a HEAD request finds it too. */
export function apiCatalogSelfLink(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): string {
  return `<${href(docUrls(ctx), table, 'getApiCatalog')}>; rel="api-catalog"`;
}
