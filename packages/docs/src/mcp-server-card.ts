// The MCP server card (SEP-2127 draft), the catalogs that list it, and the
// official MCP Registry entry (server.json), all from one generator: what the
// endpoint says about itself (MCP_SERVER_INFO), its protocol versions and the
// operation table's addresses. A client reads the card before it connects;
// the registry entry is the same facts in the registry's schema.
import { MCP_TOOLS, OPERATIONS, type OperationDef, type RouteId } from '@msa/contracts';
import { docUrls, normalizeBaseUrl, operationHref, requireOperation, type DocContext, type DocUrls } from './context.js';
import { VIEW_HOSTS } from './agent-hosts.js';
import { MCP_PROTOCOL_VERSIONS, MCP_SERVER_INFO } from './mcp-surface.js';

/** The tools that need a scope, from the tool table: `create_shop_request needs requests:write, …`. */
const SCOPED_TOOLS = MCP_TOOLS.flatMap((t) => ('scope' in t && t.scope ? [`${t.name} needs ${t.scope}`] : [])).join(', ');

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_CARD_TYPE = 'application/mcp-server-card+json';
export const REGISTRY_SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
/** The one `_meta` key the official registry keeps; the card uses it too, so both carry the same extension data. */
export const PUBLISHER_META_KEY = 'io.modelcontextprotocol.registry/publisher-provided';

/** At most 100 characters: the registry's and the card's limit. */
export const MCP_SERVER_DESCRIPTION = 'Free branded merch shops for German and Austrian organizations: catalog, prices and shop requests.';

export interface KeyValueInput {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: 'string';
  value?: string;
  variables?: Record<string, { description?: string; isRequired?: boolean; isSecret?: boolean; placeholder?: string }>;
}

export interface Remote {
  type: 'streamable-http';
  url: string;
  headers?: KeyValueInput[];
  supportedProtocolVersions?: string[];
}

export interface McpServerCard {
  $schema: string;
  name: string;
  version: string;
  title: string;
  description: string;
  websiteUrl: string;
  remotes: Remote[];
  _meta: Record<string, unknown>;
}

export interface RegistryServerJson extends Omit<McpServerCard, 'remotes'> {
  remotes: Omit<Remote, 'supportedProtocolVersions'>[];
}

/**
 * The registry name: the deployment's host in reverse-DNS form, then the
 * server's name (`example.merch-shop.api/merch-shop-agent-api`). The
 * registry grants that namespace to whoever serves the host's
 * `/.well-known/mcp-registry-auth`, which the gateway does.
 */
export function registryServerName(publicBaseUrl: string): string {
  const host = new URL(normalizeBaseUrl(publicBaseUrl)).hostname.replace(/^\[|\]$/g, '').replace(/:/g, '-');
  return `${host.split('.').reverse().join('.')}/${MCP_SERVER_INFO.name}`;
}

const href = (u: DocUrls, table: readonly OperationDef[], id: RouteId) => operationHref(u, requireOperation(table, id));

function authorizationHeader(sandbox: boolean): KeyValueInput {
  return {
    name: 'Authorization',
    description: sandbox
      ? 'Optional. An API key or OAuth access token; without one every tool works and a shop request is a sandbox request, stored and never sent.'
      : `Optional for reading. An API key (POST /v1/keys) or an OAuth access token; ${SCOPED_TOOLS}, and without it answers 401 with a Bearer challenge an OAuth-capable host follows.`,
    isRequired: false,
    isSecret: true,
    value: 'Bearer {token}',
    variables: { token: { description: 'API key or OAuth access token', isRequired: true, isSecret: true } },
  };
}

function remoteFor(u: DocUrls): Remote {
  return {
    type: 'streamable-http',
    url: u.mcp,
    headers: [authorizationHeader(u.base !== u.root)],
    supportedProtocolVersions: [...MCP_PROTOCOL_VERSIONS],
  };
}

/** How each remote authorizes, for clients that read it before connecting: the OAuth routes of the table. */
function authorizationOf(table: readonly OperationDef[], environments: DocUrls[]) {
  return environments.map((u) => ({
    resource: u.mcp,
    protected_resource_metadata: href(u, table, 'mcpProtectedResourceMetadata'),
    authorization_server: u.base,
    authorization_server_metadata: href(u, table, 'authorizationServerMetadata'),
    authorization_endpoint: href(u, table, 'authorize'),
    token_endpoint: href(u, table, 'issueAccessToken'),
    registration_endpoint: href(u, table, 'registerClient'),
    scopes_for_shop_requests: [requireOperation(table, 'createShopRequest').scope],
  }));
}

/**
 * The server card for one reader: both remotes, the reader's environment
 * first, so a client that takes the first remote stays where it found the card.
 */
export function buildMcpServerCard(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): McpServerCard {
  const production = docUrls({ ...ctx, sandbox: false });
  const sandbox = docUrls({ ...ctx, sandbox: true });
  const environments = ctx.sandbox ? [sandbox, production] : [production, sandbox];
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: registryServerName(ctx.publicBaseUrl),
    version: MCP_SERVER_INFO.version,
    title: MCP_SERVER_INFO.title,
    description: MCP_SERVER_DESCRIPTION,
    websiteUrl: href(environments[0]!, table, 'getDeveloperPortal'),
    remotes: environments.map(remoteFor),
    _meta: {
      [PUBLISHER_META_KEY]: {
        authorization: authorizationOf(table, environments),
        documentation: {
          llms_txt: href(environments[0]!, table, 'getAgentInstructions'),
          agents_md: href(environments[0]!, table, 'getAgentsMd'),
          openapi: href(environments[0]!, table, 'getOpenApi'),
        },
        // MCP Apps views: which tools have one, for hosts that advertise the extension.
        views: {
          extension: 'io.modelcontextprotocol/ui',
          tools: ['search_products', 'get_product', 'get_quote', 'create_shop_request', 'get_shop_request'],
          hosts: [...VIEW_HOSTS],
        },
        // What the directories ask for before a review: who operates it and how it treats personal data.
        legal: {
          privacy_policy: href(environments[0]!, table, 'getPrivacyNotice'),
          terms_of_service: href(environments[0]!, table, 'getTermsOfUse'),
          imprint: href(environments[0]!, table, 'getImprint'),
        },
      },
    },
  };
}

/** The official MCP Registry entry: the production card in the registry's schema (which has no protocol versions). */
export function buildRegistryServerJson(publicBaseUrl: string, table: readonly OperationDef[] = OPERATIONS): RegistryServerJson {
  const card = buildMcpServerCard({ publicBaseUrl, sandbox: false }, table);
  return {
    ...card,
    $schema: REGISTRY_SERVER_SCHEMA,
    remotes: card.remotes.map(({ supportedProtocolVersions: _versions, ...remote }) => remote),
  };
}

export interface ServerCardCatalog {
  specVersion: string;
  entries: { identifier: string; type: string; url: string }[];
}

/**
 * The catalog of server cards (AI Catalog entries, `urn:air:` identifiers):
 * the production card and the sandbox card. Served at the draft's earlier
 * `/.well-known/mcp/catalog.json` and at `/.well-known/ai-catalog.json`.
 */
export function buildMcpCatalog(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): ServerCardCatalog {
  const host = new URL(normalizeBaseUrl(ctx.publicBaseUrl)).hostname;
  const card = requireOperation(table, 'getMcpServerCard');
  return {
    specVersion: '1.0',
    entries: [
      { identifier: `urn:air:${host}:mcp:${MCP_SERVER_INFO.name}`, type: SERVER_CARD_TYPE, url: operationHref(docUrls({ ...ctx, sandbox: false }), card) },
      { identifier: `urn:air:${host}:mcp:${MCP_SERVER_INFO.name}-sandbox`, type: SERVER_CARD_TYPE, url: operationHref(docUrls({ ...ctx, sandbox: true }), card) },
    ],
  };
}
