import { describe, expect, it } from 'vitest';
import { mcpParamHeaderName, mcpParamHeaders, mcpParamValue } from './param-headers.js';

const base64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

describe('mcpParamValue', () => {
  it('reads a plain value, case-insensitively', () => {
    expect(mcpParamValue(new Headers({ 'MCP-PARAM-IDEMPOTENCY-KEY': 'abc-1' }), 'Idempotency-Key')).toEqual({ kind: 'value', value: 'abc-1' });
  });

  it('says when the header is absent', () => {
    expect(mcpParamValue(new Headers(), 'Idempotency-Key')).toEqual({ kind: 'absent' });
    expect(mcpParamValue(undefined, 'Idempotency-Key')).toEqual({ kind: 'absent' });
  });

  it('decodes the Base64 sentinel as UTF-8', () => {
    expect(mcpParamValue(new Headers({ 'mcp-param-region': base64('Köln ') }), 'Region')).toEqual({ kind: 'value', value: 'Köln ' });
  });

  it('calls a sentinel invalid when its payload is not canonical Base64 or not UTF-8', () => {
    for (const raw of ['=?base64?abc?=', '=?base64?ab!=?=', `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=`]) {
      expect(mcpParamValue(new Headers({ 'mcp-param-region': raw }), 'Region'), raw).toEqual({ kind: 'invalid' });
    }
  });
});

describe('mcpParamHeaders', () => {
  it('keeps only the Mcp-Param-* headers, by lower-case name', () => {
    expect(mcpParamHeaders({ 'mcp-param-idempotency-key': 'k', 'mcp-method': 'tools/call', authorization: 'Bearer x', 'mcp-param-a': ['1', '2'] })).toEqual({
      'mcp-param-idempotency-key': 'k',
      'mcp-param-a': '1, 2',
    });
  });

  it('names the header of an argument', () => {
    expect(mcpParamHeaderName('Idempotency-Key')).toBe('mcp-param-idempotency-key');
  });
});
