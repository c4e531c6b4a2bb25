/**
 * The names the MCP endpoint offers (spec §4 "MCP endpoint"). The mcp service
 * registers exactly these, and the documents list them, from this one place.
 */
export const MCP_TOOLS = [
  { name: 'search_products', summary: 'Search the catalog of printable base products (free text, type, decoration; paged).' },
  { name: 'get_product', summary: 'One product by handle: colors, sizes, decoration, from-price and volume tiers.' },
  { name: 'get_pricing', summary: 'Pricing overview: free setup, minimum order quantity 1, from-prices of every product.' },
  { name: 'list_public_shops', summary: 'Public merch shops, optionally by category.' },
  { name: 'create_shop_request', summary: 'Submit a shop request for an organization (sandbox unless live credentials are sent).' },
] as const;

export type McpToolName = (typeof MCP_TOOLS)[number]['name'];

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
