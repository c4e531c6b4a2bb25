// Every public operation and served route, derived from the operation table
// in contracts: which service answers it and what it needs. The gateway
// proxies nothing that is not listed there, so a service's /internal routes
// and /metrics can never be reached from outside.
import { OPERATIONS, type OperationDef, type RouteId, type Scope, type ServiceName } from '@msa/contracts';
import { compileRoutes, type Resolution as MatchedRoute } from './route-matcher.js';

export type Resolution<R extends RouteDef<string> = RouteDef> = MatchedRoute<R>;

export type UpstreamName = Exclude<ServiceName, 'gateway' | 'intake-worker'>;

/**
 * A pool of connections apart from its service's shared one. `authorize`:
 * the authorization pages, where identity may wait seconds on a client's
 * metadata document; they get their own pool and in-flight budget
 * (stages/authorize-budget.ts), so token, keys and registration never queue
 * behind them.
 */
export type PoolName = 'authorize';

/** The operations of the `authorize` pool. */
const AUTHORIZE_POOL: ReadonlySet<string> = new Set<RouteId>(['authorize', 'consent']);

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
  /** Proxied over a pool of its own instead of its service's. */
  pool?: PoolName;
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
      ...(AUTHORIZE_POOL.has(op.id) ? { pool: 'authorize' as const } : {}),
    })),
  );
}

export const ROUTES: readonly RouteDef[] = buildRoutes(OPERATIONS);

/** Finds the route for a method and a path (already without `/sandbox`). HEAD uses the GET route. */
export function createRouteResolver(routes: readonly RouteDef[] = ROUTES) {
  return compileRoutes(routes);
}
