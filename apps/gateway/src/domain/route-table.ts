// Every public operation and served route, derived from the operation table
// in contracts: which service answers it and what it needs. The gateway
// proxies nothing that is not listed there, so a service's /internal routes
// and /metrics can never be reached from outside.
import { OPERATIONS, type OperationDef, type RouteId, type Scope, type ServiceName } from '@msa/contracts';

export type UpstreamName = Exclude<ServiceName, 'gateway' | 'intake-worker'>;

/** `none`: credentials are not read; `open`: optional, used when given; `required`: 401 without. */
export type AuthMode = 'none' | 'open' | 'required';

/** An id of the operation table, or `unrouted` for a request that matches none. */
export type OperationId = RouteId | 'unrouted';

export interface RouteDef<Id extends string = OperationId> {
  operation: Id;
  method: string;
  /** Path pattern: literal segments, `:param`, or a trailing `*`. */
  path: string;
  target: UpstreamName | 'docs';
  auth: AuthMode;
  scope?: Scope;
}

/** The gateway's routes for a table: one per method, `{param}` written `:param`, in table order. */
export function buildRoutes<T extends OperationDef>(table: readonly T[]): RouteDef<T['id']>[] {
  return table.flatMap((op) =>
    [op.method, ...(op.alsoMethods ?? [])].map((method) => ({
      operation: op.id,
      method,
      path: op.path.replace(/\{([^}]+)\}/g, ':$1'),
      target: op.service,
      auth: op.auth,
      ...(op.scope ? { scope: op.scope } : {}),
    })),
  );
}

export const ROUTES: readonly RouteDef[] = buildRoutes(OPERATIONS);

export type Resolution =
  | { kind: 'route'; route: RouteDef }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

function matches(pattern: string, path: string): boolean {
  if (pattern.endsWith('/*')) return path.startsWith(pattern.slice(0, -1)) && path.length > pattern.length - 1;
  const p = pattern.split('/');
  const s = path.split('/');
  if (p.length !== s.length) return false;
  return p.every((seg, i) => (seg.startsWith(':') ? (s[i] ?? '').length > 0 : seg === s[i]));
}

/** Finds the route for a method and a path (already without `/sandbox`). HEAD uses the GET route. */
export function createRouteResolver(routes: readonly RouteDef[] = ROUTES) {
  return (method: string, rawPath: string): Resolution => {
    // One trailing slash is forgiven (`/v1/products/` is `/v1/products`).
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const candidates = routes.filter((r) => matches(r.path, path));
    if (candidates.length === 0) return { kind: 'not_found' };
    const wanted = method === 'HEAD' ? 'GET' : method;
    const route = candidates.find((r) => r.method === wanted);
    if (route) return { kind: 'route', route };
    return { kind: 'method_not_allowed', allowed: [...new Set(candidates.map((r) => r.method))] };
  };
}
