import { OPERATIONS } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { BASE, buildExchange, recordingNext } from '../../test/build-exchange.js';
import { buildRoutes } from '../domain/route-table.js';
import { UNROUTED } from './exchange.js';
import { createResolveStage } from './resolve.js';

const resolve = createResolveStage({ routes: buildRoutes(OPERATIONS), publicBaseUrl: BASE });

describe('resolve stage', () => {
  it('finds the operation and hands on', async () => {
    const x = buildExchange({ url: '/v1/products?q=hoodie' });
    const { next, ran } = recordingNext();

    await resolve(x, next);

    expect(x.route.operation).toBe('listProducts');
    expect(x).toMatchObject({ path: '/v1/products', sandboxPath: false, miss: null });
    expect(ran()).toBe(true);
  });

  it('serves /sandbox/<path> as <path> on the sandbox', async () => {
    const x = buildExchange({ url: '/sandbox/v1/products' });

    await resolve(x, () => undefined);

    expect(x).toMatchObject({ path: '/v1/products', sandboxPath: true });
    expect(x.resource.metadataUrl).toBe(`${BASE}/.well-known/oauth-protected-resource/sandbox`);
  });

  it('names the MCP resource for /mcp, so only tokens for it (or the base) fit', async () => {
    const x = buildExchange({ method: 'POST', url: '/sandbox/mcp' });

    await resolve(x, () => undefined);

    expect(x.resource.audiences).toEqual([`${BASE}/sandbox/mcp`, `${BASE}/sandbox/mcp/`, BASE, `${BASE}/`]);
  });

  it('marks an unknown path as a miss and still hands on, so it is counted like any request', async () => {
    const x = buildExchange({ url: '/nope' });
    const { next, ran } = recordingNext();

    await resolve(x, next);

    expect(x.route).toBe(UNROUTED);
    expect(x.miss).toEqual({ kind: 'not_found' });
    expect(ran()).toBe(true);
  });

  it('marks a method the path does not take, with the methods it does', async () => {
    const x = buildExchange({ method: 'DELETE', url: '/v1/pricing' });

    await resolve(x, () => undefined);

    expect(x.miss).toMatchObject({ kind: 'method_not_allowed', allowed: ['GET'] });
  });
});
