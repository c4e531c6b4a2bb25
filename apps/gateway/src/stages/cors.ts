// CORS: browser-based clients (the MCP Inspector, web hosts) discover, sign
// in and call /mcp from origins of their own. The OAuth metadata, the token,
// registration and revocation endpoints and /mcp (each also on the sandbox)
// answer any origin with `Access-Control-Allow-Origin: *` and never allow
// credentials: every privilege here is a bearer token the page must hold and
// send itself, and no cookie counts on these paths. A preflight is answered
// here, before credentials are read or anything is counted, so it is never a
// 401 nor a failed authentication. The consent pages and the portal's form
// carry no CORS headers: they stay same-origin.
import type { Handoff, Stage, View } from './exchange.js';

/** The paths (without `/sandbox`) browsers may call from any origin, and the methods each takes. */
const CORS_PATHS: ReadonlyMap<string, string> = new Map([
  ['/.well-known/oauth-authorization-server', 'GET, HEAD, OPTIONS'],
  ['/.well-known/oauth-protected-resource', 'GET, HEAD, OPTIONS'],
  ['/.well-known/oauth-protected-resource/mcp', 'GET, HEAD, OPTIONS'],
  ['/oauth/token', 'POST, OPTIONS'],
  ['/oauth/register', 'POST, OPTIONS'],
  ['/oauth/revoke', 'POST, OPTIONS'],
  // GET and DELETE get 405 (stateless), which a browser client must be able to read.
  ['/mcp', 'POST, GET, DELETE, OPTIONS'],
]);

/** Request headers a browser client may send. `*` does not cover Authorization, so it is named. */
/** What cors reads of the exchange and writes for the stages after it. */
export const CORS_HANDOFF = { reads: ['path'], writes: [] } as const satisfies Handoff;

export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Mcp-Protocol-Version',
  'Mcp-Session-Id',
  'Mcp-Method',
  'Mcp-Name',
  'Last-Event-ID',
  'X-Request-Id',
];

/** Response headers a browser client may read beyond the safelisted ones. */
export const CORS_EXPOSED_HEADERS = [
  'WWW-Authenticate',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  'API-Version',
  'Location',
  'Link',
].join(', ');

/** Browsers cap it (Chromium at two hours); within that a client preflights once per path. */
const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** A 2026-07-28 client mirrors tool arguments into `Mcp-Param-<name>` headers; their names are open-ended. */
const MCP_PARAM_HEADER = /^mcp-param-[a-z0-9-]{1,64}$/i;

/** The allowed request headers of a preflight: the fixed list, plus the `Mcp-Param-*` headers it asked for. */
function allowedHeaders(requested: string | undefined): string {
  const params = (requested ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => MCP_PARAM_HEADER.test(h));
  return [...CORS_ALLOWED_HEADERS, ...params].join(', ');
}

export function isCorsPath(path: string): boolean {
  return CORS_PATHS.has(path);
}

export function createCorsStage(): Stage<View<typeof CORS_HANDOFF>> {
  return (x, next) => {
    const methods = CORS_PATHS.get(x.path);
    if (methods === undefined) return next(x);
    const { req, res } = x;
    res.setHeader('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined) {
      res.setHeader('Access-Control-Allow-Methods', methods);
      res.setHeader('Access-Control-Allow-Headers', allowedHeaders(req.headers['access-control-request-headers']));
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS));
      // The allowed headers echo the Mcp-Param-* ones asked for.
      res.setHeader('Vary', 'Access-Control-Request-Headers');
      return void res.status(204).end();
    }
    res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
    return next(x);
  };
}
