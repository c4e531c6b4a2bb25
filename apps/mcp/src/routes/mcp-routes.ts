// POST /mcp: Streamable HTTP without sessions. Every failure on this path is
// a JSON-RPC error object (the protocol's own shape); where the API has an
// error code for it, the envelope rides along in `error.data`.
import { BOUNDS, MCP_TOOLS, type ErrorEnvelope } from '@msa/contracts';
import { buildEnvelope, jsonDepthExceeds, type Logger } from '@msa/service-kit';
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import type { IncomingHttpHeaders } from 'node:http';
import { requestedHost, type OriginPolicy } from '../domain/origin-policy.js';
import { bearerChallenge, mcpResourceMetadataUrl, toolRefusal, type ToolRefusal } from '../domain/tool-authorization.js';
import { rpcError, type McpDispatcher } from '../mcp/dispatch.js';
import { mcpParamHeaders } from '../mcp/param-headers.js';
import { initializeOffersViews, viewSessionId } from '../mcp/ui-extension.js';

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

/**
 * Whether the caller addressed `/sandbox/mcp`. The gateway names the prefix it
 * removed; `ctx.sandbox` cannot tell, since a sandbox key sets it on `/mcp` too.
 */
function onSandboxPath(headers: IncomingHttpHeaders): boolean {
  return headers['x-forwarded-prefix'] === '/sandbox';
}

/** The id to answer a refused body with: a batch is refused as a whole, under no id. */
function refusedId(body: unknown): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as { id?: unknown }).id : null;
}

type Env = { publicBaseUrl: string };

/** The envelope of a refused tool call: what to do next, for the host and for the model reading it. */
function refusalEnvelope(env: Env, root: string, { reason, tool, scope }: ToolRefusal, metadataUrl: string): ErrorEnvelope {
  const keys = `POST ${root}/v1/keys`;
  if (reason === 'insufficient_scope') {
    return buildEnvelope(env, 'insufficient_scope', `These credentials lack the scope ${scope} that ${tool} needs.`, {
      hint: `Authorize this MCP connection again asking for the scope ${scope} (OAuth), or send an API key that has it (${keys}).`,
    });
  }
  const sandbox = MCP_TOOLS.find((t) => t.name === tool)?.readOnly
    ? `${root}/sandbox/mcp reads back the shop requests made there without credentials from the same address`
    : `${root}/sandbox/mcp takes the call as a sandbox request that is validated and stored, never sent`;
  return buildEnvelope(
    env,
    'unauthorized',
    `${tool} needs authorization on this endpoint: authorize this MCP connection (OAuth, scope ${scope}; protected resource metadata at ${metadataUrl}) or send an API key as Authorization: Bearer <API_KEY>.`,
    { hint: `Create a free API key with ${keys}. Without credentials, ${sandbox}.` },
  );
}

/** Origin, host, method and media type, before the body is read. */
function guard(policy: OriginPolicy, env: Env): RequestHandler {
  return (req, res, next) => {
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
}

/** A JSON-RPC success answer (not an error). */
function answered(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'result' in body;
}

/** Runs the message through the dispatcher and answers with what it returns. */
function handle(dispatcher: McpDispatcher): RequestHandler {
  return async (req, res) => {
    const aborted = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    const header = (name: string) => {
      const v = req.headers[name];
      return typeof v === 'string' && v !== '' ? v : undefined;
    };
    const headers = {
      protocolVersion: header('mcp-protocol-version'),
      method: header('mcp-method'),
      name: header('mcp-name'),
      params: mcpParamHeaders(req.headers),
      sessionId: header('mcp-session-id'),
    };
    const result = await dispatcher.dispatch(req.body, headers, req.ctx, aborted.signal);
    if (res.headersSent || aborted.signal.aborted) return;
    for (const [k, v] of Object.entries(result.headers)) {
      if (k !== 'content-type' && k !== 'transfer-encoding' && k !== 'connection') res.setHeader(k, v);
    }
    // A host that renders views is told so on every later request by the id it repeats (ui-extension.ts).
    if (result.status === 200 && answered(result.body) && initializeOffersViews(req.body)) res.setHeader('Mcp-Session-Id', viewSessionId());
    if (result.body === null) return void res.status(result.status).end();
    send(res, result.status, result.body);
  };
}

/** Body problems become JSON-RPC errors here instead of the API envelope. */
function bodyErrors(env: Env, logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
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
}

export function mcpRoutes({ dispatcher, policy, publicBaseUrl, logger, onMessage }: McpRoutesDeps): Router {
  const router = Router();
  const env = { publicBaseUrl };
  const root = publicBaseUrl.replace(/\/+$/, '');

  // Before the SDK sees it: its schemas and JSON.stringify recurse, and a body
  // nested thousands deep would overflow the stack.
  const depth: RequestHandler = (req, res, next) => {
    if (!jsonDepthExceeds(req.body, BOUNDS.jsonMaxDepth)) return next();
    const message = `The JSON body is nested deeper than ${BOUNDS.jsonMaxDepth} levels.`;
    const envelope = buildEnvelope(env, 'invalid_request', message);
    send(res, 400, rpcError(-32600, `Invalid Request: ${message}`, null, envelope));
  };

  const count: RequestHandler = (req, _res, next) => {
    for (const m of methodsOf(req.body)) onMessage?.(m);
    next();
  };

  // Before the dispatcher runs anything, so a refused call has no effect and
  // the HTTP answer itself carries the challenge.
  const authorizeTools: RequestHandler = (req, res, next) => {
    const refusal = toolRefusal(req.body, req.ctx);
    if (!refusal) return next();
    req.log.info({ tool: refusal.tool, reason: refusal.reason }, 'mcp: tool call needs authorization');
    const metadataUrl = mcpResourceMetadataUrl(root, onSandboxPath(req.headers));
    const envelope = refusalEnvelope(env, root, refusal, metadataUrl);
    send(res, envelope.error.status, rpcError(-32000, envelope.error.message, refusedId(req.body), envelope), {
      'WWW-Authenticate': bearerChallenge(refusal, metadataUrl),
    });
  };

  const parse = express.json({ limit: MCP_BODY_LIMIT, type: () => true });
  router.all('/mcp', guard(policy, env), parse, depth, count, authorizeTools, handle(dispatcher), bodyErrors(env, logger));
  return router;
}
