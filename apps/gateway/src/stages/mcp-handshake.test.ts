import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildExchange, buildRoute, memoryWindowLimiter } from '../../test/build-exchange.js';
import { createMcpHandshakeStage } from './mcp-handshake.js';

const mcpRoute = buildRoute({ operation: 'mcpEndpoint', method: 'POST', path: '/mcp', target: 'mcp', auth: 'open' });
const handshakes = memoryWindowLimiter('mcp-handshake', 240);
const body = { maxBytes: 100 * 1024, idleMs: 1_000, deadlineMs: 1_000 };
const stage = createMcpHandshakeStage({ limiter: handshakes, body });

function post(body: unknown) {
  return buildExchange({ method: 'POST', url: '/mcp', route: mcpRoute, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('MCP handshake stage', () => {
  it('charges an initialize to the mcp-handshake bucket', async () => {
    const x = post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });

    await stage(x, () => undefined);

    expect(x.bucket?.limiter.policy).toBe('mcp-handshake');
    expect(x.bucket?.refusal(null).message).toContain('MCP handshakes');
  });

  it('leaves a tools/call to the caller\'s minute', async () => {
    const x = post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_pricing' } });

    await stage(x, () => undefined);

    expect(x.bucket).toBeNull();
  });

  it('reads no body off POST /mcp', async () => {
    const x = buildExchange({ method: 'POST', url: '/v1/keys', route: buildRoute({ target: 'identity', method: 'POST', path: '/v1/keys' }), headers: { 'content-type': 'application/json' }, body: '{"method":"initialize"}' });

    await stage(x, () => undefined);

    expect(x.bucket).toBeNull();
    expect(x.req.readableEnded).toBe(false);
  });

  it('changes nothing without a handshake limiter', async () => {
    const x = post({ jsonrpc: '2.0', id: 1, method: 'initialize' });

    await createMcpHandshakeStage({ body })(x, () => undefined);

    expect(x.bucket).toBeNull();
  });

  it('charges each message of a batch as one request', async () => {
    const search = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'search_products', arguments: { q: 'shirt' } } });
    const x = post(Array.from({ length: 7 }, (_, i) => search(i)));

    await createMcpHandshakeStage({ body })(x, () => undefined);

    expect(x.cost).toBe(7);
    expect(x.bucket).toBeNull();
  });

  it('counts a batch whatever content type or compression it is sent with, as the mcp service reads it', async () => {
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { jsonrpc: '2.0', id: 3, method: 'tools/list' }]);
    const x = buildExchange({ method: 'POST', url: '/mcp', route: mcpRoute, headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' }, body: gzipSync(batch) });

    await stage(x, () => undefined);

    expect(x.cost).toBe(3);
  });

  it('charges one request for a single message or a body that is not JSON', async () => {
    const single = post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_pricing' } });
    const garbage = buildExchange({ method: 'POST', url: '/mcp', route: mcpRoute, headers: { 'content-type': 'application/json' }, body: '[{"jsonrpc":' });

    await stage(single, () => undefined);
    await stage(garbage, () => undefined);

    expect(single.cost).toBe(1);
    expect(garbage.cost).toBe(1);
  });
});
