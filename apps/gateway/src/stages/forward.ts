// Forward: hands the request to the service that answers it, or to the
// documents router. The path loses its `/sandbox`; the client's credentials
// and any internal header it sent are removed; the service gets the signed
// context (X-Internal-Auth: principal, sandbox, client address, for this
// service), the request id and the trace in their own headers, and the
// X-Forwarded-* headers the gateway vouches for. A body is received in full
// first (routes/peek-body.ts), so a client still sending holds no connection
// to the service. A route with a pool of its own goes through that pool's
// proxy.
import { INTERNAL_AUTH_HEADER, INTERNAL_HEADERS, type InternalSigner } from '@msa/contracts';
import type { RequestHandler } from 'express';
import type { PoolName, UpstreamName } from '../domain/route-table.js';
import { awaitsBody, receiveBody, type ReceiveOptions } from '../routes/peek-body.js';
import type { Handoff, Stage, View } from './exchange.js';

/** What forward reads of the exchange and writes for the stages after it. */
export const FORWARD_HANDOFF = { reads: ['path', 'sandboxPath', 'route', 'principal'], writes: [] } as const satisfies Handoff;

export interface ForwardOptions {
  sign: InternalSigner;
  publicBaseUrl: string;
  /** One proxy per service, and one per pool of the route table (routes/service-proxy.ts). */
  proxies: Record<UpstreamName | PoolName, RequestHandler>;
  /** How a body is received before it is proxied (its bound, the client's pauses and the deadline). */
  body: ReceiveOptions;
}

export function createForwardStage({ sign, publicBaseUrl, proxies, body }: ForwardOptions): Stage<View<typeof FORWARD_HANDOFF>> {
  const publicHost = new URL(publicBaseUrl).host;
  return (x) => {
    const { req, res, route, principal } = x;
    // A sandbox key makes every path sandbox; a live key on /sandbox stays on the sandbox.
    const sandbox = x.sandboxPath || principal?.mode === 'sandbox';
    // `sandbox` cannot tell a sandbox key on /mcp from /sandbox/mcp; the mcp
    // service names the resource the caller addressed in its challenges.
    const forwardedPrefix = x.sandboxPath && req.path.startsWith('/sandbox') ? '/sandbox' : undefined;
    const queryAt = req.url.indexOf('?');
    req.url = queryAt === -1 ? x.path : x.path + req.url.slice(queryAt);

    if (route.target === 'docs') {
      res.locals.sandbox = sandbox;
      res.locals.principal = principal;
      x.next();
      return;
    }

    const { headers } = req;
    for (const h of INTERNAL_HEADERS) delete headers[h];
    if (route.auth !== 'none') {
      // Credentials stop here; services get the verified principal instead.
      delete headers.authorization;
      delete headers['x-api-key'];
    }
    headers[INTERNAL_AUTH_HEADER] = sign(route.target, { principal, sandbox, ip: x.ip, request_id: req.id, traceparent: req.traceparent });
    headers['x-request-id'] = req.id;
    headers.traceparent = req.traceparent;
    headers['x-forwarded-host'] = headers.host ?? publicHost;
    headers['x-forwarded-proto'] = req.protocol;
    headers['x-forwarded-for'] = x.ip;
    if (forwardedPrefix) headers['x-forwarded-prefix'] = forwardedPrefix;
    else delete headers['x-forwarded-prefix'];
    const proxy = proxies[route.pool ?? route.target];
    if (!awaitsBody(req)) return void proxy(req, res, x.next);
    return receiveBody(req, body).then(() => void proxy(req, res, x.next));
  };
}
