import { API_VERSION, type OperationId } from '@msa/contracts';
import { docUrls, type DocContext } from './context.js';
import { SERVICE_DESCRIPTION, SERVICE_NAME } from './facts.js';
import { MCP_PROTOCOL_VERSIONS, MCP_RESOURCES, MCP_TOOLS } from './mcp-surface.js';

export type LinkAuth = 'none' | 'optional' | 'required';

export interface ServiceLink {
  href: string;
  method: string;
  title: string;
  /** Media type of the answer. */
  type: string;
  auth: LinkAuth;
  operation_id?: OperationId;
  scope?: string;
  /** True when `href` holds a `{placeholder}` (RFC 6570). */
  templated?: boolean;
}

export interface ServiceDocument {
  name: string;
  description: string;
  api_version: string;
  environment: 'production' | 'sandbox';
  sandbox: boolean;
  base_url: string;
  production_base_url: string;
  sandbox_base_url: string;
  markdown: string;
  links: Record<string, ServiceLink>;
  mcp: {
    href: string;
    transport: string;
    protocol_versions: string[];
    tools: string[];
    resources: { name: string; uri: string; mime_type: string }[];
  };
}

/** The entry point: a link to every resource of the API, for the reader's environment. */
export function buildServiceDocument(ctx: DocContext): ServiceDocument {
  const u = docUrls(ctx);
  const json = 'application/json';
  const md = 'text/markdown';
  const l = (
    href: string,
    method: string,
    title: string,
    type: string,
    auth: LinkAuth,
    extra: Partial<Pick<ServiceLink, 'operation_id' | 'scope' | 'templated'>> = {},
  ): ServiceLink => ({ href, method, title, type, auth, ...extra });

  const links: Record<string, ServiceLink> = {
    self: l(`${u.base}/`, 'GET', 'This service document (Markdown with Accept: text/markdown)', json, 'none', { operation_id: 'getServiceDocument' }),
    openapi: l(u.openapi, 'GET', 'OpenAPI 3.1 document', json, 'none', { operation_id: 'getOpenApi' }),
    llms_txt: l(u.llmsTxt, 'GET', 'Agent instructions (llms.txt)', md, 'none', { operation_id: 'getAgentInstructions' }),
    agents_md: l(u.agentsMd, 'GET', 'How an agent should act with this API', md, 'none'),
    developer_portal: l(u.developers, 'GET', 'Developer portal (HTML; Markdown with Accept: text/markdown)', 'text/html', 'none'),
    versioning: l(u.versioning, 'GET', 'Versioning policy', json, 'none', { operation_id: 'getVersioningPolicy' }),
    onboarding: l(u.onboarding, 'GET', 'Onboarding: free-tier limits, credentials, OAuth, sandbox', json, 'none', { operation_id: 'getOnboarding' }),
    key_onboarding: l(u.keys, 'GET', 'How to create credentials (same document as onboarding)', json, 'none', { operation_id: 'getKeyOnboarding' }),
    create_key: l(u.keys, 'POST', 'Create free credentials', json, 'none', { operation_id: 'createApiKey' }),
    me: l(u.me, 'GET', 'Who the credentials belong to', json, 'required', { operation_id: 'getCurrentPrincipal' }),
    products: l(u.products, 'GET', 'List and search printable base products', json, 'optional', { operation_id: 'listProducts', scope: 'catalog:read' }),
    product: l(`${u.products}/{handle}`, 'GET', 'One product by handle', json, 'optional', { operation_id: 'getProduct', scope: 'catalog:read', templated: true }),
    pricing: l(u.pricing, 'GET', 'Pricing overview', json, 'optional', { operation_id: 'getPricing', scope: 'catalog:read' }),
    shops: l(u.shops, 'GET', 'Public merch shops', json, 'optional', { operation_id: 'listPublicShops', scope: 'shops:read' }),
    create_shop_request: l(u.shopRequests, 'POST', 'Submit a shop request for an organization', json, 'required', { operation_id: 'createShopRequest', scope: 'requests:write' }),
    shop_request: l(`${u.shopRequests}/{id}`, 'GET', 'Stored status of a shop request', json, 'required', { operation_id: 'getShopRequest', scope: 'requests:read', templated: true }),
    oauth_token: l(u.oauthToken, 'POST', 'OAuth 2.0 token endpoint (client credentials)', json, 'none', { operation_id: 'issueAccessToken' }),
    oauth_register: l(u.oauthRegister, 'POST', 'OAuth 2.0 dynamic client registration (RFC 7591)', json, 'none', { operation_id: 'registerClient' }),
    oauth_authorization_server_metadata: l(u.authorizationServerMetadata, 'GET', 'OAuth authorization server metadata (RFC 8414)', json, 'none'),
    oauth_protected_resource_metadata: l(u.protectedResourceMetadata, 'GET', 'OAuth protected resource metadata (RFC 9728)', json, 'none'),
    jwks: l(u.jwks, 'GET', 'Public keys that sign access tokens', json, 'none'),
    mcp: l(u.mcp, 'POST', 'MCP endpoint (Streamable HTTP, JSON-RPC 2.0)', json, 'optional', { operation_id: 'mcpEndpoint' }),
    production: l(`${u.production}/`, 'GET', 'Production service document', json, 'none'),
    sandbox: l(`${u.sandbox}/`, 'GET', 'Sandbox service document: every endpoint, nothing is sent', json, 'none'),
  };

  return {
    name: SERVICE_NAME,
    description: SERVICE_DESCRIPTION,
    api_version: API_VERSION,
    environment: ctx.sandbox ? 'sandbox' : 'production',
    sandbox: ctx.sandbox,
    base_url: u.base,
    production_base_url: u.production,
    sandbox_base_url: u.sandbox,
    markdown: 'Every documentation URL answers Accept: text/markdown with Markdown.',
    links,
    mcp: {
      href: u.mcp,
      transport: 'streamable-http',
      protocol_versions: [...MCP_PROTOCOL_VERSIONS],
      tools: MCP_TOOLS.map((t) => t.name),
      resources: MCP_RESOURCES.map((r) => ({ name: r.name, uri: r.uri, mime_type: r.mimeType })),
    },
  };
}
