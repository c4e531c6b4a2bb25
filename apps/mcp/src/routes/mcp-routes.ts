// POST /mcp: Streamable HTTP without sessions. Every failure on this path is
// a JSON-RPC error object (the protocol's own shape); where the API has an
// error code for it, the envelope rides along in `error.data`.
import { BOUNDS } from '@msa/contracts';
import { buildEnvelope, jsonDepthExceeds, type Logger } from '@msa/service-kit';
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { requestedHost, type OriginPolicy } from '../domain/origin-policy.js';
import { rpcError, type McpDispatcher } from '../mcp/dispatch.js';

export interface McpRoutesDeps {
  dispatcher: McpDispatcher;
  policy: OriginPolicy;
  publicBaseUrl: string;
  logger: Logger;
  /** Counts JSON-RPC messages by method. */
  onMessage?: (method: string) => void;
}

/** Request bodies on /mcp are capped like every other body of the API. */
export const MCP_BODY_LIMIT = BOUNDS.bodyMaxBytes;
const BODY_LIMIT_TEXT = `${BOUNDS.bodyMaxBytes / 1024} kB`;

const KNOWN_METHODS = new Set([
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'server/discover',
  'notifications/initialized',
  'notifications/cancelled',
]);

function send(res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.status(status).type('application/json').send(JSON.stringify(body));
}

function methodsOf(body: unknown): string[] {
  const list = Array.isArray(body) ? body : [body];
  return list.map((m) => {
    const method = m && typeof m === 'object' ? (m as { method?: unknown }).method : undefined;
    if (typeof method !== 'string') return 'none';
    return KNOWN_METHODS.has(method) ? method : 'other';
  });
}

export function mcpRoutes({ dispatcher, policy, publicBaseUrl, logger, onMessage }: McpRoutesDeps): Router {
  const router = Router();
  const env = { publicBaseUrl };

  const guard: RequestHandler = (req, res, next) => {
    const origin = req.headers.origin;
    if (!policy.originAllowed(origin)) {
      req.log.warn({ origin }, 'mcp: origin refused');
      const envelope = buildEnvelope(env, 'origin_not_allowed', `The origin ${origin} may not call this MCP endpoint.`);
      return send(res, 403, rpcError(-32000, `Forbidden: origin ${origin} is not allowed`, null, envelope));
    }
    const host = requestedHost(req.headers);
    if (!policy.hostAllowed(host)) {
      req.log.warn({ host }, 'mcp: host refused');
      const envelope = buildEnvelope(env, 'forbidden', `This MCP endpoint does not answer for the host ${host ?? '(none)'}.`, {
        hint: 'Call the MCP endpoint at the address given in the service document.',
      });
      return send(res, 403, rpcError(-32000, `Forbidden: host ${host ?? '(none)'} is not allowed`, null, envelope));
    }
    if (req.method !== 'POST') {
      // Stateless: there is no session to open a stream on (GET) or to end (DELETE).
      const envelope = buildEnvelope(env, 'method_not_allowed', `${req.method} is not allowed on /mcp; send JSON-RPC messages with POST.`);
      return send(res, 405, rpcError(-32000, 'Method not allowed.', null, envelope), { Allow: 'POST' });
    }
    if (!req.is('application/json')) {
      const envelope = buildEnvelope(env, 'unsupported_media_type', 'Send the JSON-RPC message as application/json.');
      return send(res, 415, rpcError(-32000, 'Unsupported Media Type: Content-Type must be application/json', null, envelope));
    }
    next();
  };

  // Before the SDK sees it: its schemas and JSON.stringify recurse, and a body
  // nested thousands deep would overflow the stack.
  const depth: RequestHandler = (req, res, next) => {
    if (!jsonDepthExceeds(req.body, BOUNDS.jsonMaxDepth)) return next();
    const message = `The JSON body is nested deeper than ${BOUNDS.jsonMaxDepth} levels.`;
    const envelope = buildEnvelope(env, 'invalid_request', message);
    send(res, 400, rpcError(-32600, `Invalid Request: ${message}`, null, envelope));
  };

  const handle: RequestHandler = async (req, res) => {
    for (const m of methodsOf(req.body)) onMessage?.(m);
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const header = (name: string) => {
      const v = req.headers[name];
      return typeof v === 'string' && v !== '' ? v : undefined;
    };
    const result = await dispatcher.dispatch(
      req.body,
      { protocolVersion: header('mcp-protocol-version'), method: header('mcp-method'), name: header('mcp-name') },
      req.ctx,
      aborted.signal,
    );
    if (res.headersSent || aborted.signal.aborted) return;
    for (const [k, v] of Object.entries(result.headers)) {
      if (k !== 'content-type' && k !== 'transfer-encoding' && k !== 'connection') res.setHeader(k, v);
    }
    if (result.body === null) return void res.status(result.status).end();
    send(res, result.status, result.body);
  };

  // Body problems become JSON-RPC errors here instead of the API envelope.
  const bodyErrors: ErrorRequestHandler = (err, req, res, next) => {
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') return send(res, 400, rpcError(-32700, 'Parse error: the body is not valid JSON'));
    if (type === 'entity.too.large') {
      const envelope = buildEnvelope(env, 'payload_too_large', `The request body is larger than ${BODY_LIMIT_TEXT}.`);
      return send(res, 413, rpcError(-32600, `Invalid Request: the body is larger than ${BODY_LIMIT_TEXT}`, null, envelope));
    }
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
      return send(res, 415, rpcError(-32000, 'Unsupported Media Type: send UTF-8 JSON'));
    }
    if (type === 'request.aborted') return;
    (req.log ?? logger).error({ err }, 'mcp request failed');
    if (res.headersSent) return next(err);
    send(res, 500, rpcError(-32603, 'Internal error'));
  };

  router.all('/mcp', guard, express.json({ limit: MCP_BODY_LIMIT, type: () => true }), depth, handle, bodyErrors);
  return router;
}
