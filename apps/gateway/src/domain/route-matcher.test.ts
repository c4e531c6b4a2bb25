import { describe, expect, it } from 'vitest';
import { compileRoutes } from './route-matcher.js';
import { ROUTES, type RouteDef } from './route-table.js';

const route = (method: string, path: string, operation = `${method} ${path}`): RouteDef<string> => ({ operation, method, path, target: 'catalog', auth: 'open' });

/** The table scan the matcher replaces, kept here as the reference it must agree with. */
function scan(routes: readonly RouteDef<string>[], method: string, rawPath: string) {
  const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
  const matches = (pattern: string) => {
    if (pattern.endsWith('/*')) return path.startsWith(pattern.slice(0, -1)) && path.length > pattern.length - 1;
    const p = pattern.split('/');
    const s = path.split('/');
    return p.length === s.length && p.every((seg, i) => (seg.startsWith(':') ? (s[i] ?? '').length > 0 : seg === s[i]));
  };
  const candidates = routes.filter((r) => matches(r.path));
  if (candidates.length === 0) return { kind: 'not_found' };
  const wanted = method === 'HEAD' ? 'GET' : method;
  const hit = candidates.find((r) => r.method === wanted);
  if (hit) return { kind: 'route', route: hit };
  return { kind: 'method_not_allowed', allowed: [...new Set(candidates.map((r) => r.method))] };
}

describe('compileRoutes', () => {
  it('agrees with a scan of the table for every route, method and awkward path', () => {
    const resolve = compileRoutes(ROUTES);
    const paths = [
      ...ROUTES.map((r) => r.path.replace(/:[a-z]+/g, 'x').replace(/\*$/, 'a/b.svg')),
      ...ROUTES.map((r) => `${r.path}/`),
      '/', '//', '', '/v1', '/v10/products', '/v1/productsx', '/v1/products//', '/v1/products/a/b', '/images/', '/images/shops/',
      '/v1/shop-requests/', '/v1/shop-requests//', '/mcp/', '/nothing/here', '/v1/products/%2F',
    ];

    for (const method of ['GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'OPTIONS']) {
      for (const path of paths) expect(resolve(method, path), `${method} ${path}`).toEqual(scan(ROUTES, method, path));
    }
  });

  it('lets a literal path and a parameter match the same path, the earlier route first', () => {
    const routes = [route('GET', '/v1/things/:id', 'byId'), route('GET', '/v1/things/new', 'new'), route('POST', '/v1/things/new', 'create')];
    const resolve = compileRoutes(routes);

    expect(resolve('GET', '/v1/things/new')).toMatchObject({ route: { operation: 'byId' } });
    expect(resolve('POST', '/v1/things/new')).toMatchObject({ route: { operation: 'create' } });
    expect(resolve('DELETE', '/v1/things/new')).toEqual({ kind: 'method_not_allowed', allowed: ['GET', 'POST'] });
    expect(resolve('DELETE', '/v1/things/7')).toEqual({ kind: 'method_not_allowed', allowed: ['GET'] });
  });

  it('needs at least one character below a wildcard prefix', () => {
    const resolve = compileRoutes([route('GET', '/images/*')]);

    expect(resolve('GET', '/images/a').kind).toBe('route');
    expect(resolve('GET', '/images/').kind).toBe('not_found');
    expect(resolve('GET', '/images').kind).toBe('not_found');
  });

  it('treats regular-expression characters in a literal path as themselves', () => {
    const resolve = compileRoutes([route('GET', '/a.b/:id')]);

    expect(resolve('GET', '/a.b/1').kind).toBe('route');
    expect(resolve('GET', '/axb/1').kind).toBe('not_found');
  });
});
