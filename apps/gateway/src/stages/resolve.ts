// Resolve: which operation a request names, and whether on the sandbox.
// `/sandbox/<path>` (and the RFC 8414 / 9728 path-insertion forms) serve
// `<path>` on the sandbox. A path or method the table does not know is not
// refused here: it is authenticated and counted like any request, so probing
// costs the same as calling, and answered by the unrouted stage.
import { protectedResourceFor, type ProtectedResource } from '../domain/protected-resource.js';
import { createRouteResolver, type RouteDef } from '../domain/route-table.js';
import { splitSandbox } from '../domain/sandbox-path.js';
import { UNROUTED, type Handoff, type Stage, type View } from './exchange.js';

/** What resolve reads of the exchange and writes for the stages after it. */
export const RESOLVE_HANDOFF = { reads: [], writes: ['path', 'sandboxPath', 'route', 'miss', 'resource'] } as const satisfies Handoff;

export interface ResolveOptions {
  routes: readonly RouteDef[];
  publicBaseUrl: string;
}

export function createResolveStage({ routes, publicBaseUrl }: ResolveOptions): Stage<View<typeof RESOLVE_HANDOFF>> {
  const resolveRoute = createRouteResolver(routes);
  // Four resources in all (REST or MCP, live or sandbox), made once.
  const resources: Record<string, ProtectedResource> = {};
  for (const sandbox of [false, true]) {
    for (const mcp of [false, true]) resources[`${sandbox}:${mcp}`] = protectedResourceFor(publicBaseUrl, sandbox, mcp);
  }

  return (x, next) => {
    const { sandbox, path } = splitSandbox(x.req.path);
    const resolution = resolveRoute(x.req.method, path);
    x.path = path;
    x.sandboxPath = sandbox;
    if (resolution.kind === 'route') x.route = resolution.route;
    else {
      x.route = UNROUTED;
      x.miss = resolution;
    }
    // The resource the client addressed decides which token audiences fit, whatever mode the principal turns out to have.
    x.resource = resources[`${sandbox}:${x.route.target === 'mcp'}`]!;
    return next(x);
  };
}
