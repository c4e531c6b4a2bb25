import type { CallContext } from '@msa/contracts';
import { MCP_SERVER_INFO } from '@msa/docs';
import { McpServer } from '@modelcontextprotocol/server';
import type { McpDeps } from './deps.js';
import { registerResources } from './resources.js';
import { registerTools } from './tools.js';
import { registerViews } from './views.js';

/** Who the endpoint says it is: the same facts its server card and registry entry give. */
export const SERVER_INFO = MCP_SERVER_INFO;

/** What create_shop_request does on this connection, in one sentence. */
function shopRequestNote(root: string, ctx: CallContext): string {
  if (ctx.sandbox) return 'This connection creates sandbox shop requests: validated and stored, never sent.';
  if (ctx.principal) return 'This connection uses live credentials: create_shop_request reaches the operator team.';
  return `Reading the catalog, prices and shops needs no credentials; create_shop_request and get_shop_request do: calling one asks the host to authorize (OAuth), or send an API key. On ${root}/sandbox/mcp both work without credentials and nothing is ever sent.`;
}

function instructions(deps: McpDeps, ctx: CallContext): string {
  const root = deps.urls.root;
  const where = shopRequestNote(root, ctx);
  return [
    'Free, branded merch shops for schools, clubs, companies, craft businesses and restaurants in Germany and Austria.',
    'Look up products with search_products and get_product (never invent handles or colors), explain costs with get_pricing, show examples with list_public_shops,',
    'submit a shop request with create_shop_request only after the person you act for has confirmed every detail, and read it back with get_shop_request.',
    where,
    `Prices are gross EUR incl. 19 % VAT unless a field is named netto. Read the resource agents.md (or ${root}/agents.md) before the first shop request.`,
  ].join(' ');
}

/** What a server offers beyond the core protocol, decided per message. */
export interface ServerOffer {
  /** MCP Apps: the tools' `_meta.ui` and the `ui://` views (ui-extension.ts). */
  views: boolean;
}

/** A fresh server for one request, bound to the caller's context (principal, sandbox, request id). */
export function buildMcpServer(deps: McpDeps, ctx: CallContext, offer: ServerOffer = { views: false }): McpServer {
  const server = new McpServer(
    { ...SERVER_INFO, websiteUrl: `${deps.urls.root}/developers` },
    {
      instructions: instructions(deps, ctx),
      // The SDK defaults listChanged to true, but a stateless server holds no
      // stream to send list_changed on; the lists only change with a deploy.
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    },
  );
  registerTools(server, deps, ctx, offer.views);
  registerResources(server, deps, ctx);
  if (offer.views) registerViews(server);
  return server;
}
