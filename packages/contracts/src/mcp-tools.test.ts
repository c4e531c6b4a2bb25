import { describe, expect, it } from 'vitest';
import { LIMITS } from './common.js';
import { CreateShopRequestArgs, GetShopRequestArgs, IDEMPOTENCY_KEY_MCP_HEADER, MCP_TOOLS, MCP_TOOL_NAMES, SearchProductsArgs, mcpTool, toolScopeOf } from './mcp-tools.js';
import { OPERATIONS } from './operations.js';
import { Quote, QuoteBody } from './quotes.js';
import { z } from './zod.js';

describe('MCP_TOOLS', () => {
  it('holds the five tools of the specification, get_shop_request and get_quote, once each', () => {
    expect([...MCP_TOOL_NAMES].sort()).toEqual(['create_shop_request', 'get_pricing', 'get_product', 'get_quote', 'get_shop_request', 'list_public_shops', 'search_products']);
  });

  it('marks only create_shop_request as not read-only', () => {
    expect(MCP_TOOLS.filter((t) => !t.readOnly).map((t) => t.name)).toEqual(['create_shop_request']);
  });

  it('asks a scope of the shop request tools only, so catalog and shop reads stay open', () => {
    expect(MCP_TOOLS.filter((t) => t.scope).map((t) => [t.name, t.scope])).toEqual([
      ['create_shop_request', 'requests:write'],
      ['get_shop_request', 'requests:read'],
    ]);
  });

  it('takes each scope from the operations table, where the operation of the tool requires credentials', () => {
    for (const tool of MCP_TOOLS) {
      const op = OPERATIONS.find((o) => o.id === tool.operation);
      if (!op) throw new Error(`${tool.name}: no operation ${tool.operation}`);
      expect(tool.scope, tool.name).toBe(op.auth === 'required' && 'scope' in op ? op.scope : undefined);
    }
    expect(toolScopeOf('createShopRequest')).toBe('requests:write');
    expect(toolScopeOf('listProducts')).toBeUndefined();
    expect(() => toolScopeOf('noSuchOperation' as 'getQuote')).toThrow(/No operation 'noSuchOperation'/);
  });

  it('gives every tool a title and a one-line summary', () => {
    for (const tool of MCP_TOOLS) {
      expect(tool.title, tool.name).toMatch(/^[A-Z]/);
      expect(tool.summary, tool.name).not.toContain('\n');
      expect(tool.summary.length, tool.name).toBeGreaterThan(20);
    }
  });

  it('sets all four hints on every tool explicitly, as the app directories require', () => {
    for (const tool of MCP_TOOLS) {
      expect(Object.keys(tool.hints).sort(), tool.name).toEqual(['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint']);
      for (const value of Object.values(tool.hints)) expect(typeof value, tool.name).toBe('boolean');
      expect(tool.readOnly, tool.name).toBe(tool.hints.readOnlyHint);
    }
  });

  it('marks the tool that e-mails people as destructive and open world, and every read as neither', () => {
    expect(mcpTool('create_shop_request').hints).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    for (const tool of MCP_TOOLS.filter((t) => t.readOnly)) {
      expect(tool.hints, tool.name).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    }
  });

  it('refuses arguments a tool does not know', () => {
    for (const tool of MCP_TOOLS) expect(tool.args.safeParse({ surprise: true }).success, tool.name).toBe(false);
  });

  it('gives get_quote the body of POST /v1/quotes itself, so both validate alike', () => {
    expect(mcpTool('get_quote').args).toBe(QuoteBody);
    expect(mcpTool('get_quote').output).toBe(Quote);
  });

  it('finds a tool by name', () => {
    expect(mcpTool('get_product').args.parse({ handle: 'bio-t-shirt-unisex' })).toEqual({ handle: 'bio-t-shirt-unisex' });
  });
});

describe('SearchProductsArgs', () => {
  it('pages with the default and maximum of the REST list', () => {
    expect(SearchProductsArgs.parse({})).toMatchObject({ limit: LIMITS.listProductsLimitDefault, offset: 0 });
    expect(SearchProductsArgs.safeParse({ limit: LIMITS.listProductsLimitMax }).success).toBe(true);
    expect(SearchProductsArgs.safeParse({ limit: LIMITS.listProductsLimitMax + 1 }).success).toBe(false);
  });

  it('names the limits it enforces in the descriptions a model reads', () => {
    expect(SearchProductsArgs.shape.q.description).toContain(`Max ${LIMITS.queryQMax} characters`);
    expect(SearchProductsArgs.shape.limit.description).toContain(`1 to ${LIMITS.listProductsLimitMax} (default ${LIMITS.listProductsLimitDefault})`);
  });
});

describe('CreateShopRequestArgs', () => {
  it('takes the shop request body plus an optional idempotency key', () => {
    const args = {
      organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Muster', email: 'erika@example.de' },
      shop_name: 'TSV Fanshop',
      design_service: true,
      idempotency_key: 'key-1',
    };

    expect(CreateShopRequestArgs.parse(args)).toMatchObject({ shop_name: 'TSV Fanshop', idempotency_key: 'key-1' });
  });

  it('names the idempotency key as an HTTP header for 2026-07-28 clients (x-mcp-header)', () => {
    const advertised = z.toJSONSchema(CreateShopRequestArgs, { io: 'input' }) as { properties: Record<string, Record<string, unknown>> };

    expect(advertised.properties.idempotency_key).toMatchObject({ type: 'string', 'x-mcp-header': IDEMPOTENCY_KEY_MCP_HEADER });
    const marked = Object.entries(advertised.properties).filter(([, p]) => 'x-mcp-header' in p);
    expect(marked.map(([name]) => name)).toEqual(['idempotency_key']);
  });

  it('states the idempotency window of LIMITS in hours', () => {
    const advertised = z.toJSONSchema(CreateShopRequestArgs, { io: 'input' }) as { properties: Record<string, { description?: string }> };

    expect(advertised.properties.idempotency_key!.description).toContain(`within ${LIMITS.idempotencyWindowSeconds / 3600} hours`);
  });
});

describe('GetShopRequestArgs', () => {
  it('takes a shop request id and nothing else', () => {
    expect(GetShopRequestArgs.parse({ id: 'req_0123456789abcdef' })).toEqual({ id: 'req_0123456789abcdef' });
    expect(GetShopRequestArgs.safeParse({ id: 'req_0123' }).success).toBe(false);
    expect(GetShopRequestArgs.safeParse({}).success).toBe(false);
  });
});
