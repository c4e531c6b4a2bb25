import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from '@msa/contracts';
import type { CallContext } from '@msa/contracts';
import { MAX_BATCH, createMcpDispatcher } from './dispatch.js';

const ctx: CallContext = { principal: null, sandbox: true, ip: '127.0.0.1', request_id: 'test' };

// A one-tool server that reports the context it was built for.
function factory(c: CallContext): McpServer {
  const server = new McpServer({ name: 'test', version: '1.0.0' });
  server.registerTool('whoami', { inputSchema: z.object({}) }, async () => ({
    content: [{ type: 'text', text: JSON.stringify({ sandbox: c.sandbox, request_id: c.request_id }) }],
  }));
  return server;
}

const dispatcher = createMcpDispatcher(factory);
const req = (id: number, method: string, params?: unknown) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

describe('createMcpDispatcher', () => {
  it('builds each server for the caller context', async () => {
    const result = await dispatcher.dispatch(req(1, 'tools/call', { name: 'whoami', arguments: {} }), {}, { ...ctx, request_id: 'abc' });

    expect(result.status).toBe(200);
    const text = (result.body as { result: { content: Array<{ text: string }> } }).result.content[0]!.text;
    expect(JSON.parse(text)).toEqual({ sandbox: true, request_id: 'abc' });
  });

  it('answers a batch with an array in request order and drops notifications', async () => {
    const result = await dispatcher.dispatch([req(1, 'ping'), { jsonrpc: '2.0', method: 'notifications/initialized' }, req(2, 'nope')], {}, ctx);

    expect(result.status).toBe(200);
    expect(result.body).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: expect.any(String) } },
    ]);
  });

  it('ignores JSON-RPC responses inside a batch', async () => {
    const result = await dispatcher.dispatch([{ jsonrpc: '2.0', id: 9, result: {} }], {}, ctx);

    expect(result.status).toBe(202);
    expect(result.body).toBeNull();
  });

  it('refuses a batch longer than the limit', async () => {
    const batch = Array.from({ length: MAX_BATCH + 1 }, (_, i) => req(i, 'ping'));

    const result = await dispatcher.dispatch(batch, {}, ctx);

    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ error: { code: -32600 } });
  });

  it('answers a lone notification with 202 and no body', async () => {
    const result = await dispatcher.dispatch({ jsonrpc: '2.0', method: 'notifications/initialized' }, {}, ctx);

    expect(result).toMatchObject({ status: 202, body: null });
  });
});
