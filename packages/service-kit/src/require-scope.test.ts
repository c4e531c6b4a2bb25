import type { CallContext, OperationDef, Principal } from '@msa/contracts';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { appError } from './errors.js';
import { requireScope, routePathOf } from './require-scope.js';

function buildPrincipal(overrides: Partial<Principal>): Principal {
  return { id: 'msa_client_1', name: 'agent', scopes: [], mode: 'sandbox', tier: 'free', via: 'api_key', ...overrides };
}

function buildContext(overrides: Partial<CallContext>): CallContext {
  return { principal: null, sandbox: false, ip: '127.0.0.1', request_id: 'r-1', ...overrides };
}

function run(handler: ReturnType<typeof requireScope>, ctx: Request['ctx']): unknown {
  let passed = false;
  try {
    void handler({ ctx } as Request, {} as Response, () => void (passed = true));
  } catch (err) {
    return err;
  }
  return passed ? 'next' : 'stopped';
}

describe('requireScope', () => {
  it('reads the scope of the operation from the table', () => {
    const guard = requireScope('createShopRequest');

    expect(run(guard, buildContext({ principal: buildPrincipal({ scopes: ['requests:write'] }) }))).toBe('next');
    expect(run(guard, buildContext({ principal: buildPrincipal({ scopes: ['requests:read'] }) }))).toMatchObject({
      code: 'insufficient_scope',
      message: 'This operation needs the scope requests:write.',
    });
  });

  it('refuses a call without credentials where the operation requires them', () => {
    expect(run(requireScope('getShopRequest'), buildContext({ principal: null }))).toMatchObject({ code: 'unauthorized' });
  });

  it('refuses a call without credentials with the error the caller names', () => {
    const challenge = appError('unauthorized', 'This resource needs credentials.', { headers: { 'WWW-Authenticate': 'Bearer' } });
    const guard = requireScope('getCurrentPrincipal', { unauthorized: () => challenge });

    expect(run(guard, buildContext({ principal: null }))).toBe(challenge);
    expect(run(guard, buildContext({ principal: buildPrincipal({}) }))).toBe('next');
  });

  it('lets a call without credentials through an open operation, and the caller decide otherwise', () => {
    expect(run(requireScope('createQuote'), buildContext({ principal: null }))).toBe('next');
    expect(run(requireScope('createShopRequest', { anonymous: (req) => req.ctx.sandbox }), buildContext({ principal: null, sandbox: true }))).toBe('next');
  });

  it('stops at start-up on an id the table does not know', () => {
    expect(() => requireScope('noSuchOperation' as 'getQuote', {}, [] as OperationDef[])).toThrow(/no operation 'noSuchOperation'/);
  });
});

describe('routePathOf', () => {
  it('writes the table path the way express matches it', () => {
    expect(routePathOf('getQuote')).toBe('/v1/quotes/:id');
    expect(routePathOf('createShopRequest')).toBe('/v1/shop-requests');
  });
});
