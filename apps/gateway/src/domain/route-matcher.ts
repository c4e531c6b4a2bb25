// The route table compiled once into lookups, so a request finds its route
// without scanning the table or splitting its path. Paths without parameters
// (almost every call) are one map lookup that returns a resolution made at
// start; the others are tried in table order, as before.
/** What matching reads of a route; the table's routes carry more, which comes back unchanged. */
export interface MatchableRoute {
  method: string;
  /** Literal segments, `:param`, or a trailing `*`. */
  path: string;
}

export type Resolution<R extends MatchableRoute> =
  | { kind: 'route'; route: R }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

const NOT_FOUND = Object.freeze({ kind: 'not_found' }) satisfies Resolution<never>;

interface Matcher {
  test(path: string): boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `:param` is one non-empty segment; a trailing `/*` is anything non-empty below the prefix. */
function compilePattern(pattern: string): Matcher {
  if (pattern.endsWith('/*')) {
    const prefix = pattern.slice(0, -1);
    return { test: (path) => path.length > prefix.length && path.startsWith(prefix) };
  }
  const body = pattern
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : escapeRegExp(seg)))
    .join('/');
  return new RegExp(`^${body}$`);
}

function isLiteral(pattern: string): boolean {
  return !pattern.endsWith('/*') && !pattern.split('/').some((seg) => seg.startsWith(':'));
}

/** Resolutions by method for one set of matching routes (in table order). HEAD uses the GET route. */
function resolutionsFor<R extends MatchableRoute>(candidates: readonly R[]): (method: string) => Resolution<R> {
  if (candidates.length === 0) return () => NOT_FOUND;
  const byMethod = new Map<string, Resolution<R>>();
  for (const route of candidates) if (!byMethod.has(route.method)) byMethod.set(route.method, { kind: 'route', route });
  const notAllowed: Resolution<R> = { kind: 'method_not_allowed', allowed: [...byMethod.keys()] };
  return (method) => byMethod.get(method === 'HEAD' ? 'GET' : method) ?? notAllowed;
}

/** Finds the route for a method and a path (already without `/sandbox`). HEAD uses the GET route. */
export function compileRoutes<R extends MatchableRoute>(routes: readonly R[]): (method: string, rawPath: string) => Resolution<R> {
  const compiled = routes.map((route) => ({ route, matcher: compilePattern(route.path) }));
  const dynamic = compiled.filter(({ route }) => !isLiteral(route.path));
  const literal = new Map<string, (method: string) => Resolution<R>>();
  for (const { route } of compiled) {
    if (!isLiteral(route.path) || literal.has(route.path)) continue;
    // Every route matching this exact path, parameterised ones included, in table order.
    literal.set(route.path, resolutionsFor(compiled.filter(({ matcher }) => matcher.test(route.path)).map(({ route: r }) => r)));
  }

  const found = new Map<R, Resolution<R>>(routes.map((route) => [route, { kind: 'route', route }]));

  return (method, rawPath) => {
    // One trailing slash is forgiven (`/v1/products/` is `/v1/products`).
    const path = rawPath.length > 1 && rawPath.endsWith('/') ? rawPath.slice(0, -1) : rawPath;
    const known = literal.get(path);
    if (known) return known(method);
    const wanted = method === 'HEAD' ? 'GET' : method;
    let allowed: string[] | undefined;
    for (const { route, matcher } of dynamic) {
      if (!matcher.test(path)) continue;
      if (route.method === wanted) return found.get(route)!;
      allowed ??= [];
      if (!allowed.includes(route.method)) allowed.push(route.method);
    }
    return allowed ? { kind: 'method_not_allowed', allowed } : NOT_FOUND;
  };
}
