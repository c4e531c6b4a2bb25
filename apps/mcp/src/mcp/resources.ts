// Resources with stable URIs. Documents render for the caller's environment
// (sandbox links on the sandbox); catalog, pricing and shops are fetched from
// their services on every read, so a read never returns stale data.
import type { CallContext } from '@msa/contracts';
import { MCP_RESOURCES, openApiFor, renderAgentsMd, renderLlmsTxt, type McpResourceName } from '@msa/docs';
import { ProtocolError, ProtocolErrorCode, type McpServer, type ReadResourceResult } from '@modelcontextprotocol/server';
import type { McpDeps } from './deps.js';
import { envelopeOfFailure } from './tool-result.js';

const TITLES: Record<McpResourceName, string> = {
  'llms.txt': 'Agent instructions (llms.txt)',
  'agents.md': 'How to act with this API',
  'openapi.json': 'OpenAPI 3.1 document',
  products: 'All products',
  pricing: 'Pricing overview',
  'public-shops': 'Public shops',
};

export function registerResources(server: McpServer, deps: McpDeps, ctx: CallContext): void {
  const docCtx = { publicBaseUrl: deps.publicBaseUrl, sandbox: ctx.sandbox };

  const readers: Record<McpResourceName, () => Promise<string>> = {
    'llms.txt': async () => renderLlmsTxt(docCtx),
    'agents.md': async () => renderAgentsMd(docCtx),
    'openapi.json': async () => JSON.stringify(openApiFor(docCtx)),
    products: async () => {
      const products = await deps.catalog.listAllProducts(ctx);
      return JSON.stringify({ total: products.length, products });
    },
    pricing: async () => JSON.stringify(await deps.catalog.getPricing(ctx)),
    'public-shops': async () => JSON.stringify(await deps.shops.listShops(ctx)),
  };

  for (const r of MCP_RESOURCES) {
    const service = r.name === 'public-shops' ? 'shops' : 'catalog';
    server.registerResource(
      r.name,
      r.uri,
      { title: TITLES[r.name], description: r.summary, mimeType: r.mimeType },
      async (uri): Promise<ReadResourceResult> => {
        let text: string;
        try {
          text = await readers[r.name]();
        } catch (err) {
          // A resource has no isError result: the failure is a JSON-RPC error carrying the envelope.
          const env = envelopeOfFailure(err, deps.envelope, service);
          deps.logger.warn({ err, resource: r.name }, 'resource read failed');
          throw new ProtocolError(ProtocolErrorCode.InternalError, env.error.message, env);
        }
        return { contents: [{ uri: uri.href, mimeType: r.mimeType, text }] };
      },
    );
  }
}
