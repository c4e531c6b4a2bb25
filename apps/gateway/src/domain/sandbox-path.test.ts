import { describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationDef } from '@msa/contracts';
import { sandboxInsertions, splitSandbox } from './sandbox-path.js';

describe('splitSandbox', () => {
  it('strips /sandbox and flags the call', () => {
    expect(splitSandbox('/sandbox/v1/shops')).toEqual({ sandbox: true, path: '/v1/shops' });
    expect(splitSandbox('/sandbox')).toEqual({ sandbox: true, path: '/' });
  });

  it('leaves production paths alone, including look-alikes', () => {
    expect(splitSandbox('/v1/shops')).toEqual({ sandbox: false, path: '/v1/shops' });
    expect(splitSandbox('/sandboxed/v1/shops')).toEqual({ sandbox: false, path: '/sandboxed/v1/shops' });
  });

  it('understands the RFC 8414 path-insertion form of the sandbox issuer metadata', () => {
    expect(splitSandbox('/.well-known/oauth-authorization-server/sandbox')).toEqual({
      sandbox: true,
      path: '/.well-known/oauth-authorization-server',
    });
    expect(splitSandbox('/.well-known/oauth-protected-resource/sandbox')).toEqual({
      sandbox: true,
      path: '/.well-known/oauth-protected-resource',
    });
  });

  it('understands the RFC 9728 path-insertion form of the sandbox MCP resource metadata', () => {
    expect(splitSandbox('/.well-known/oauth-protected-resource/sandbox/mcp')).toEqual({
      sandbox: true,
      path: '/.well-known/oauth-protected-resource/mcp',
    });
    expect(splitSandbox('/sandbox/.well-known/oauth-protected-resource/mcp')).toEqual({
      sandbox: true,
      path: '/.well-known/oauth-protected-resource/mcp',
    });
  });

  it('takes the path-insertion forms from the operation table, so a new metadata entry gets one with no other edit', () => {
    const base = OPERATIONS.find((op) => op.id === 'protectedResourceMetadata') as OperationDef;
    const table = [...OPERATIONS, { ...base, id: 'widgetMetadata', path: '/.well-known/widget-metadata/tools' }];

    expect(sandboxInsertions(table).get('/.well-known/widget-metadata/sandbox/tools')).toBe('/.well-known/widget-metadata/tools');
    expect(sandboxInsertions().has('/.well-known/widget-metadata/sandbox/tools')).toBe(false);
  });

  it('refuses a path-insertion entry outside /.well-known/, which has no such form', () => {
    const base = OPERATIONS.find((op) => op.id === 'protectedResourceMetadata') as OperationDef;

    expect(() => sandboxInsertions([{ ...base, id: 'odd', path: '/v1/odd' }])).toThrow(/odd: path-insertion needs/);
  });
});
