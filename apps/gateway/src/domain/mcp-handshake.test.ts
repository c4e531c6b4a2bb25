import { describe, expect, it } from 'vitest';
import { isMcpHandshake } from './mcp-handshake.js';

const msg = (method: string) => ({ jsonrpc: '2.0', id: 1, method });

describe('isMcpHandshake', () => {
  it('recognises initialize, notifications/initialized and server/discover', () => {
    expect(isMcpHandshake(msg('initialize'))).toBe(true);
    expect(isMcpHandshake({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(true);
    expect(isMcpHandshake(msg('server/discover'))).toBe(true);
  });

  it('does not count calls that read or write data as a handshake', () => {
    expect(isMcpHandshake(msg('tools/call'))).toBe(false);
    expect(isMcpHandshake(msg('tools/list'))).toBe(false);
    expect(isMcpHandshake(msg('resources/read'))).toBe(false);
  });

  it('takes a batch only when every element is a handshake', () => {
    expect(isMcpHandshake([msg('initialize'), { jsonrpc: '2.0', method: 'notifications/initialized' }])).toBe(true);
    expect(isMcpHandshake([msg('initialize'), msg('tools/call')])).toBe(false);
    expect(isMcpHandshake([])).toBe(false);
  });

  it('refuses anything that is not a JSON-RPC message', () => {
    expect(isMcpHandshake(null)).toBe(false);
    expect(isMcpHandshake('initialize')).toBe(false);
    expect(isMcpHandshake({ method: 42 })).toBe(false);
  });
});
