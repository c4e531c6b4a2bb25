import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MCP_TOOLS, type McpToolSpec } from './mcp-tools.js';
import { OPERATIONS, type OperationDef } from './operations.js';
import { formatSurface, publishedSurface, surfaceBreaks, type PublishedSurface } from './published-surface.js';
import { z } from './zod.js';

const recordedText = readFileSync(new URL('../published-surface.json', import.meta.url), 'utf8');
const recorded = JSON.parse(recordedText) as PublishedSurface;

/** The tool table with one entry changed. */
function toolsWith(name: string, change: (tool: McpToolSpec) => McpToolSpec | null): McpToolSpec[] {
  return MCP_TOOLS.flatMap((t) => {
    if (t.name !== name) return [t];
    const changed = change(t);
    return changed ? [changed] : [];
  });
}

/** The operation table with one entry changed. */
function operationsWith(id: string, change: (op: OperationDef) => OperationDef): OperationDef[] {
  return OPERATIONS.map((op) => (op.id === id ? change(op) : op));
}

describe('the published surface (published-surface.json)', () => {
  it('is still offered by the MCP tool table and the operation table: names, paths, methods and input fields', () => {
    expect(surfaceBreaks(recorded, publishedSurface())).toEqual([]);
  });

  it('is the file pnpm surface writes, one field per line', () => {
    expect(formatSurface(recorded)).toBe(recordedText);
  });

  it('records every tool and every public operation of the specification', () => {
    expect(Object.keys(recorded.mcp_tools)).toEqual(expect.arrayContaining(['search_products', 'create_shop_request', 'get_shop_request']));
    expect(Object.keys(recorded.operations)).toEqual(expect.arrayContaining(['listProducts', 'createShopRequest', 'getShopRequest', 'mcpEndpoint']));
    expect(recorded.mcp_tools.create_shop_request!.input['products[].product']).toEqual({ type: ['string'], required: true });
    expect(recorded.mcp_tools.create_shop_request!.input.idempotency_key).toEqual({ type: ['string'], required: false, header: 'Idempotency-Key' });
    expect(recorded.operations.createShopRequest).toMatchObject({ method: 'POST', path: '/v1/shop-requests' });
  });
});

describe('surfaceBreaks', () => {
  const now = publishedSurface();

  it('accepts a new tool, a new operation and a new optional field', () => {
    const extraTool = { ...MCP_TOOLS[0], name: 'compare_products' } as McpToolSpec;
    const grown = publishedSurface(
      [...toolsWith('get_product', (t) => ({ ...t, args: (t.args as z.ZodObject).extend({ locale: z.string().optional() }) })), extraTool],
      [...OPERATIONS, { ...OPERATIONS.find((o) => o.id === 'getPricing')!, id: 'getPricingV2', path: '/v1/pricing-v2' }],
    );

    expect(surfaceBreaks(now, grown)).toEqual([]);
  });

  it('fails when a tool is renamed', () => {
    const renamed = publishedSurface(toolsWith('get_product', (t) => ({ ...t, name: 'product_details' })));

    expect(surfaceBreaks(now, renamed)).toEqual(['MCP tool get_product was removed or renamed']);
  });

  it('fails when a tool input field is removed', () => {
    const fewer = publishedSurface(toolsWith('search_products', (t) => ({ ...t, args: (t.args as z.ZodObject).omit({ offset: true }) })));

    expect(surfaceBreaks(now, fewer)).toEqual(['MCP tool search_products: field offset was removed']);
  });

  it('fails when a nested field of a shop request is removed, through the tool and the operation', () => {
    const fewer = JSON.parse(JSON.stringify(now)) as PublishedSurface;
    delete fewer.mcp_tools.create_shop_request!.input['organization.phone'];
    delete fewer.operations.createShopRequest!.request.body!['application/json']!['organization.phone'];

    expect(surfaceBreaks(now, fewer)).toEqual([
      'MCP tool create_shop_request: field organization.phone was removed',
      'operation createShopRequest body (application/json): field organization.phone was removed',
    ]);
  });

  it('fails when an optional field becomes required, or a new field is required', () => {
    const stricter = publishedSurface(
      toolsWith('search_products', (t) => ({ ...t, args: (t.args as z.ZodObject).extend({ q: z.string(), region: z.string() }) })),
    );

    expect(surfaceBreaks(now, stricter)).toEqual(['MCP tool search_products: field q is now required', 'MCP tool search_products: new field region is required']);
  });

  it('fails when an enumeration loses a value or a type is narrowed', () => {
    const narrower = publishedSurface(
      toolsWith('search_products', (t) => ({
        ...t,
        args: (t.args as z.ZodObject).extend({ decoration: z.enum(['dtf']).optional(), limit: z.string().optional() }),
      })),
    );

    expect(surfaceBreaks(now, narrower)).toEqual([
      'MCP tool search_products: field decoration no longer accepts "stick"',
      'MCP tool search_products: field limit no longer accepts integer',
    ]);
  });

  it('fails when idempotency_key is mirrored into another header', () => {
    const moved = JSON.parse(JSON.stringify(now)) as PublishedSurface;
    moved.mcp_tools.create_shop_request!.input.idempotency_key!.header = 'Request-Key';

    expect(surfaceBreaks(now, moved)).toEqual([
      'MCP tool create_shop_request: field idempotency_key is mirrored into Mcp-Param-Request-Key instead of Mcp-Param-Idempotency-Key',
    ]);
  });

  it('fails when an operation is renamed or moved, or loses a query field', () => {
    const changed = publishedSurface(MCP_TOOLS, [
      ...operationsWith('getPricing', (op) => ({ ...op, id: 'readPricing' })).filter((op) => op.id !== 'listPublicShops'),
      { ...OPERATIONS.find((o) => o.id === 'listPublicShops')!, path: '/v1/public-shops', request: {} },
    ]);

    expect(surfaceBreaks(now, changed)).toEqual([
      'operation getPricing (GET /v1/pricing) was removed or renamed',
      'operation listPublicShops moved from GET /v1/shops to GET /v1/public-shops',
      'operation listPublicShops query: field category was removed',
    ]);
  });

  it('keeps a new union branch with its own required field additive', () => {
    const surfaceOf = (args: z.ZodObject) => publishedSurface([{ ...MCP_TOOLS[0], name: 'x', args } as McpToolSpec], []);
    const a = z.object({ kind: z.literal('a'), code: z.string() });
    const b = z.object({ kind: z.literal('b'), secret: z.string() });
    const c = z.object({ kind: z.literal('c'), device: z.string() });
    const before = surfaceOf(z.object({ grant: z.union([a, b]) }));
    const after = surfaceOf(z.object({ grant: z.union([a, b, c]) }));

    expect(surfaceBreaks(before, after)).toEqual([]);
    expect(surfaceBreaks(after, before)).toEqual(['MCP tool x: field grant.device was removed', 'MCP tool x: field grant.kind no longer accepts "c"']);
  });
});
