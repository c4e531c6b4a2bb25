// What a strict MCP client checks on tools/list and tools/call: portable
// output schemas (no type arrays, no empty additionalProperties), and
// structuredContent on every result that validates against the advertised
// JSON Schema with ajv, the validator the SDK ships, in strict mode.
import { Ajv, addFormats } from '@modelcontextprotocol/server/validators/ajv';
import { MCP_TOOLS, type McpToolName } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LEGACY_VERSION,
  buildShopRequest,
  callTool,
  initializeRequest,
  legacyRequest,
  livePrincipal,
  startMcpHarness,
  TEST_BASE_URL,
  type McpHarness,
} from './support.js';

let h: McpHarness;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tool definitions are deep JSON under test
let tools: Array<Record<string, any>>;
// Tools with a scope run with credentials; the shop request read back is this principal's.
const principal = livePrincipal();
const withCredentials = { principal, sandbox: false };

beforeAll(async () => {
  h = await startMcpHarness('mcp-tool-output');
  const res = await h.rpc(legacyRequest('tools/list'), { headers: { 'MCP-Protocol-Version': LEGACY_VERSION } });
  tools = res.body.result.tools;
  const created = await h.rpc(callTool('create_shop_request', buildShopRequest()), { ctx: withCredentials });
  CALLS.get_shop_request.ok.id = created.body.result.structuredContent.id;
});

afterAll(async () => {
  await h?.close();
});

/** Every place in a JSON Schema a strict client warns about, as JSON pointers. */
function portabilityProblems(node: unknown, path = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((child, i) => portabilityProblems(child, `${path}/${i}`));
  if (!node || typeof node !== 'object') return [];
  const problems: string[] = [];
  const schema = node as Record<string, unknown>;
  if (Array.isArray(schema.type)) problems.push(`${path}/type is an array`);
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object' && Object.keys(extra).length === 0) problems.push(`${path}/additionalProperties is {}`);
  for (const [key, child] of Object.entries(schema)) problems.push(...portabilityProblems(child, `${path}/${key}`));
  return problems;
}

function strictAjv() {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats(ajv);
  return ajv;
}

/** Arguments that succeed, and arguments that fail, for each tool of the contracts table. */
const CALLS: Record<McpToolName, { ok: Record<string, unknown>; failing: Record<string, unknown> }> = {
  search_products: { ok: { q: 'hoodie', limit: 3 }, failing: { limit: 0 } },
  get_product: { ok: { handle: 'bio-t-shirt-kinder' }, failing: { handle: 'no-such-product' } },
  get_pricing: { ok: {}, failing: { surprise: true } },
  list_public_shops: { ok: {}, failing: { category: 'handwerk' } },
  create_shop_request: { ok: buildShopRequest(), failing: buildShopRequest({ shop_name: '' }) },
  get_shop_request: { ok: { id: 'set in beforeAll' }, failing: { id: 'req_0000000000000000' } },
  get_quote: {
    ok: { organization_type: 'unternehmen', lines: [{ product: 'bio-polo-herren', quantity: 40 }] },
    failing: { organization_type: 'unternehmen', lines: [{ product: 'golden-polo', quantity: 40 }] },
  },
};

describe('initialize', () => {
  it('advertises tools and resources without listChanged, since a stateless server never sends it', async () => {
    const res = await h.rpc(initializeRequest());

    expect(res.body.result.capabilities.tools).toEqual({ listChanged: false });
    expect(res.body.result.capabilities.resources).toEqual({ listChanged: false });
  });
});

describe('tools/list for a strict client', () => {
  it('lists a call plan for every tool, so a new tool cannot skip these checks', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(CALLS).sort());
  });

  it('writes every input and output schema without type arrays or empty additionalProperties', () => {
    for (const tool of tools) {
      expect(portabilityProblems(tool.outputSchema), `${tool.name} outputSchema`).toEqual([]);
      expect(portabilityProblems(tool.inputSchema), `${tool.name} inputSchema`).toEqual([]);
    }
  });

  it('gives every output schema an object root that strict ajv compiles', () => {
    const ajv = strictAjv();
    for (const tool of tools) {
      expect(tool.outputSchema.type, tool.name).toBe('object');
      expect(() => ajv.compile(tool.outputSchema), tool.name).not.toThrow();
    }
  });

  it('annotates every tool with all four hints', () => {
    for (const tool of tools) {
      expect(Object.keys(tool.annotations), tool.name).toEqual(
        expect.arrayContaining(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']),
      );
    }
    const reads = tools.filter((t) => MCP_TOOLS.find((entry) => entry.name === t.name)?.readOnly);
    expect(reads.map((t) => t.name)).toContain('get_shop_request');
    for (const tool of reads) expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });
});

describe('tools/call for a strict client', () => {
  it('returns structuredContent that validates against the advertised output schema, on success and on failure', async () => {
    const ajv = strictAjv();
    for (const tool of tools) {
      const validate = ajv.compile(tool.outputSchema);
      const plan = CALLS[tool.name as McpToolName];
      for (const [outcome, args] of [['ok', plan.ok], ['failing', plan.failing]] as const) {
        const ctx = MCP_TOOLS.find((entry) => entry.name === tool.name)?.scope ? withCredentials : {};
        const res = await h.rpc(callTool(tool.name, args), { ctx });
        const result = res.body.result;

        expect(result, `${tool.name} ${outcome}`).toBeDefined();
        expect(Boolean(result.isError), `${tool.name} ${outcome}`).toBe(outcome === 'failing');
        expect(result.structuredContent, `${tool.name} ${outcome}`).toBeTypeOf('object');
        expect(validate(result.structuredContent) ? [] : validate.errors, `${tool.name} ${outcome}`).toEqual([]);
      }
    }
  });

  it('returns a valid result for an anonymous shop request on the sandbox too', async () => {
    const tool = tools.find((t) => t.name === 'create_shop_request')!;
    const validate = strictAjv().compile(tool.outputSchema);

    const res = await h.rpc(callTool('create_shop_request', buildShopRequest()), { ctx: { principal: null, sandbox: true } });

    expect(validate(res.body.result.structuredContent) ? [] : validate.errors).toEqual([]);
    expect(res.body.result.structuredContent.next_steps).toContain(`${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp`);
  });
});
