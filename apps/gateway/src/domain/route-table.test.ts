import { OPERATION_IDS } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { ROUTES, createRouteResolver } from './route-table.js';

const resolve = createRouteResolver();

describe('route table', () => {
  it('routes every operation of the specification', () => {
    const routed = new Set(ROUTES.map((r) => r.operation));

    expect(OPERATION_IDS.filter((id) => !routed.has(id))).toEqual([]);
  });

  it('resolves a product handle to the catalog with the catalog:read scope', () => {
    const r = resolve('GET', '/v1/products/bio-shirt');

    expect(r).toMatchObject({ kind: 'route', route: { target: 'catalog', scope: 'catalog:read', auth: 'open' } });
  });

  it('sends GET /v1/keys to the documents and POST /v1/keys to identity', () => {
    expect(resolve('GET', '/v1/keys')).toMatchObject({ route: { target: 'docs' } });
    expect(resolve('POST', '/v1/keys')).toMatchObject({ route: { target: 'identity', auth: 'none' } });
  });

  it('sends the favicon to the documents without reading credentials', () => {
    expect(resolve('GET', '/favicon.ico')).toMatchObject({ kind: 'route', route: { target: 'docs', auth: 'none' } });
  });

  it('answers method_not_allowed with the allowed methods of a known path', () => {
    expect(resolve('DELETE', '/v1/shop-requests')).toEqual({ kind: 'method_not_allowed', allowed: ['POST'] });
  });

  it('does not treat /v10 or /v1/productsx as catalog paths', () => {
    expect(resolve('GET', '/v10/products').kind).toBe('not_found');
    expect(resolve('GET', '/v1/productsx').kind).toBe('not_found');
  });

  it('forgives one trailing slash and maps HEAD to GET', () => {
    expect(resolve('GET', '/v1/pricing/')).toMatchObject({ kind: 'route', route: { operation: 'getPricing' } });
    expect(resolve('HEAD', '/v1/pricing')).toMatchObject({ kind: 'route', route: { operation: 'getPricing' } });
  });

  it('sends shop images to shops and product images to the catalog', () => {
    expect(resolve('GET', '/images/shops/tsv-musterstadt.svg')).toMatchObject({ route: { target: 'shops' } });
    expect(resolve('GET', '/images/products/bio-shirt.svg')).toMatchObject({ route: { target: 'catalog' } });
  });

  it('never exposes internal service routes or metrics', () => {
    expect(resolve('POST', '/internal/introspect').kind).toBe('not_found');
    expect(resolve('GET', '/metrics').kind).toBe('not_found');
  });

  it('gives the authorization and consent pages, live and sandbox, the authorize pool and the token endpoint none', () => {
    expect(resolve('GET', '/oauth/authorize')).toMatchObject({ route: { target: 'identity', pool: 'authorize' } });
    expect(resolve('GET', '/oauth/consent/abc')).toMatchObject({ route: { target: 'identity', pool: 'authorize' } });
    expect(resolve('POST', '/oauth/consent/abc')).toMatchObject({ route: { target: 'identity', pool: 'authorize' } });
    for (const [method, path] of [['POST', '/oauth/token'], ['POST', '/v1/keys'], ['POST', '/oauth/register']] as const) {
      expect(resolve(method, path)).toMatchObject({ kind: 'route', route: { target: 'identity' } });
      expect(resolve(method, path)).not.toHaveProperty('route.pool');
    }
  });

  it('requires credentials with the right scope for shop requests', () => {
    expect(resolve('POST', '/v1/shop-requests')).toMatchObject({ route: { auth: 'required', scope: 'requests:write' } });
    expect(resolve('GET', '/v1/shop-requests/req_0123456789abcdef')).toMatchObject({
      route: { auth: 'required', scope: 'requests:read' },
    });
  });
});
