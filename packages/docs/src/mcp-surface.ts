// The tools are data in contracts, where the mcp service registers them from;
// the documents list the same table.
import { PRODUCT_NAME } from '@msa/contracts';

export { MCP_TOOLS, type McpToolName } from '@msa/contracts';

export const MCP_RESOURCES = [
  { name: 'llms.txt', uri: 'msa://docs/llms.txt', mimeType: 'text/markdown', summary: 'Agent instructions (llms.txt).' },
  { name: 'agents.md', uri: 'msa://docs/agents.md', mimeType: 'text/markdown', summary: 'How an agent should act with this API.' },
  { name: 'openapi.json', uri: 'msa://docs/openapi.json', mimeType: 'application/json', summary: 'The OpenAPI 3.1 document.' },
  { name: 'products', uri: 'msa://catalog/products', mimeType: 'application/json', summary: 'Every product of the catalog (current data).' },
  { name: 'pricing', uri: 'msa://catalog/pricing', mimeType: 'application/json', summary: 'The pricing overview (current data).' },
  { name: 'public-shops', uri: 'msa://shops/public', mimeType: 'application/json', summary: 'The public shops (current data).' },
] as const;

export type McpResourceName = (typeof MCP_RESOURCES)[number]['name'];

/** The MCP protocol revisions the endpoint serves. */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2026-07-28'] as const;

/**
 * Who the MCP endpoint says it is (`serverInfo`), and so what its server card
 * and MCP Registry entry say. The registry keeps every published version, so
 * a release that changes the MCP surface raises `version` here.
 */
export const MCP_SERVER_INFO = {
  name: 'merch-shop-agent-api',
  title: PRODUCT_NAME,
  version: '1.0.0',
} as const;
