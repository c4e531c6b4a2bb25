// Bodies meant to break the server rather than use it. On /mcp every answer
// stays a JSON-RPC error, and the process keeps serving afterwards.
import { BOUNDS } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, legacyRequest, LEGACY_VERSION, startMcpHarness, type McpHarness } from './support.js';

let h: McpHarness;

beforeAll(async () => {
  h = await startMcpHarness('mcp-hostile-input');
});

afterAll(async () => {
  await h?.close();
});

describe('POST /mcp with hostile bodies', () => {
  it('answers JSON nested 5,000 deep with a JSON-RPC -32600 error and 400, not a stack overflow', async () => {
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${'['.repeat(5_000)}${']'.repeat(5_000)}}`;

    const res = await h.rpc(deep);

    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(res.body.error.data.error).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('answers tool arguments nested past the bound with -32600', async () => {
    let nested: unknown = 'x';
    for (let i = 0; i < BOUNDS.jsonMaxDepth; i++) nested = { n: nested };

    const res = await h.rpc(callTool('search_products', { q: nested as string }), { headers: { 'MCP-Protocol-Version': LEGACY_VERSION } });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32600);
  });

  it('answers a body that is not JSON with -32700', async () => {
    const res = await h.rpc('{"jsonrpc":"2.0",');

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
  });

  it('keeps answering after hostile bodies', async () => {
    const res = await h.rpc(legacyRequest('ping'), { headers: { 'MCP-Protocol-Version': LEGACY_VERSION } });

    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({});
  });
});
