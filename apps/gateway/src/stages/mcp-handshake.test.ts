import { describe, expect, it } from 'vitest';
import { buildExchange, buildRoute, memoryWindowLimiter } from '../../test/build-exchange.js';
import { createMcpHandshakeStage } from './mcp-handshake.js';

const mcpRoute = buildRoute({ operation: 'mcpEndpoint', method: 'POST', path: '/mcp', target: 'mcp', auth: 'open' });
const handshakes = memoryWindowLimiter('mcp-handshake', 240);
const stage = createMcpHandshakeStage({ limiter: handshakes, clientBodyTimeoutMs: 1_000 });

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

    await createMcpHandshakeStage({ clientBodyTimeoutMs: 1_000 })(x, () => undefined);

    expect(x.bucket).toBeNull();
  });
});
