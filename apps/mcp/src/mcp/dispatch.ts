// Serves parsed JSON-RPC bodies over both protocol eras without sessions.
//
// 2026-07-28 traffic (a per-request `_meta` envelope) goes to the SDK's
// createMcpHandler, which owns that era's validation ladder and
// `server/discover`. 2025-era traffic (initialize, then plain requests) gets
// a fresh server and a stateless Streamable HTTP transport in JSON mode: the
// SDK's own legacy fallback would answer with SSE. Batches are split here and
// each element runs through the same pipeline, so a batch is always answered
// with an array (the SDK answers a one-request batch with a bare object and
// refuses an initialize inside a batch).
import type { CallContext } from '@msa/contracts';
import type { ServerOffer } from './build-server.js';
import { messageOffersViews } from './ui-extension.js';
import {
  WebStandardStreamableHTTPServerTransport,
  classifyInboundRequest,
  createMcpHandler,
  isLegacyRequest,
  type McpServer,
} from '@modelcontextprotocol/server';

/** The standard MCP request headers that describe a single message. */
export interface McpHeaders {
  protocolVersion?: string;
  method?: string;
  name?: string;
  /** `Mcp-Param-*` headers by lower-case name: tool arguments a 2026-07-28 client mirrored (`x-mcp-header`). */
  params?: Record<string, string>;
  /** `Mcp-Session-Id`: this server keeps no sessions, but the id may say the host renders views (ui-extension.ts). */
  sessionId?: string;
}

export interface DispatchResult {
  status: number;
  /** The JSON body, or null for an empty answer (202 for notifications). */
  body: unknown;
  headers: Record<string, string>;
}

export interface McpDispatcher {
  dispatch(body: unknown, headers: McpHeaders, ctx: CallContext, signal?: AbortSignal): Promise<DispatchResult>;
  close(): Promise<void>;
}

/** The SDK's bound on one batch; a longer array is refused whole. */
export const MAX_BATCH = 100;

// The SDK works on web-standard Requests; this URL never leaves the process.
const INTERNAL_URL = 'http://mcp.internal/mcp';

export function rpcError(code: number, message: string, id: unknown = null, data?: unknown) {
  return { jsonrpc: '2.0' as const, error: { code, message, ...(data !== undefined ? { data } : {}) }, id: isId(id) ? id : null };
}

function isId(id: unknown): id is string | number {
  return typeof id === 'string' || typeof id === 'number';
}

function idOf(message: unknown): string | number | null {
  if (message && typeof message === 'object' && !Array.isArray(message)) {
    const id = (message as { id?: unknown }).id;
    return isId(id) ? id : null;
  }
  return null;
}

async function toResult(response: Response): Promise<DispatchResult> {
  const text = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    if (key !== 'content-length') headers[key] = value;
  });
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = rpcError(-32603, 'Internal error: the server produced no JSON answer.');
    }
  }
  return { status: response.status, body, headers };
}

export function createMcpDispatcher(
  factory: (ctx: CallContext, offer: ServerOffer) => McpServer,
  { onerror }: { onerror?: (err: Error) => void } = {},
): McpDispatcher {
  // createMcpHandler builds its per-request server from the Request it was
  // given; the caller's context travels with that Request object.
  const contexts = new WeakMap<Request, { ctx: CallContext; offer: ServerOffer }>();
  const modern = withoutJsonModeNotice(() =>
    createMcpHandler(
      ({ requestInfo }) => {
        const bound = requestInfo ? contexts.get(requestInfo) : undefined;
        if (!bound) throw new Error('No call context for this MCP request');
        return factory(bound.ctx, bound.offer);
      },
      { legacy: 'reject', responseMode: 'json', onerror },
    ),
  );

  async function single(message: unknown, headers: McpHeaders, ctx: CallContext, signal?: AbortSignal): Promise<DispatchResult> {
    const request = new Request(INTERNAL_URL, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // Answers are always JSON; clients that omit text/event-stream are served all the same.
        accept: 'application/json, text/event-stream',
        ...(headers.protocolVersion ? { 'mcp-protocol-version': headers.protocolVersion } : {}),
        ...(headers.method ? { 'mcp-method': headers.method } : {}),
        ...(headers.name ? { 'mcp-name': headers.name } : {}),
        // The SDK checks them against the arguments on a 2026-07-28 call; the
        // tools read them from the request they are handed.
        ...headers.params,
      },
      body: JSON.stringify(message),
      signal,
    });
    const offer: ServerOffer = { views: messageOffersViews(message, headers.sessionId) };
    if (await isLegacyRequest(request, message)) {
      const server = factory(ctx, offer);
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      if (onerror) transport.onerror = onerror;
      try {
        await server.connect(transport);
        return await toResult(await transport.handleRequest(request, { parsedBody: message }));
      } finally {
        await Promise.allSettled([transport.close(), server.close()]);
      }
    }
    contexts.set(request, { ctx, offer });
    return toResult(await modern.fetch(request, { parsedBody: message }));
  }

  async function batch(messages: unknown[], headers: McpHeaders, ctx: CallContext, signal?: AbortSignal): Promise<DispatchResult> {
    if (messages.length === 0) {
      return { status: 400, body: rpcError(-32600, 'Invalid Request: empty JSON-RPC batch'), headers: {} };
    }
    if (messages.length > MAX_BATCH) {
      return { status: 400, body: rpcError(-32600, `Invalid Request: a batch holds at most ${MAX_BATCH} messages`), headers: {} };
    }
    // Mcp-Method, Mcp-Name and Mcp-Param-* describe one message; in a batch they describe none.
    const elementHeaders: McpHeaders = {
      ...(headers.protocolVersion ? { protocolVersion: headers.protocolVersion } : {}),
      ...(headers.sessionId ? { sessionId: headers.sessionId } : {}),
    };
    const answers = await Promise.all(
      messages.map(async (message) => {
        const outcome = classifyInboundRequest({ httpMethod: 'POST', body: message, ...(headers.protocolVersion ? { protocolVersionHeader: headers.protocolVersion } : {}) });
        if (outcome.kind === 'reject') return rpcError(outcome.code, outcome.message, idOf(message), outcome.data);
        if (outcome.kind === 'modern') {
          return rpcError(-32600, 'Invalid Request: requests of protocol revision 2026-07-28 cannot be batched; send each in its own POST', idOf(message));
        }
        if (outcome.reason === 'response') return null; // a client's answer to us: nothing to reply
        const result = await single(message, elementHeaders, ctx, signal);
        if (result.body === null) return null; // a notification
        const answer = result.body as { id?: unknown };
        if (answer && typeof answer === 'object' && answer.id === null && idOf(message) !== null) answer.id = idOf(message);
        return answer;
      }),
    );
    const responses = answers.filter((a) => a !== null);
    if (responses.length === 0) return { status: 202, body: null, headers: {} };
    return { status: 200, body: responses, headers: { 'content-type': 'application/json' } };
  }

  return {
    dispatch: (body, headers, ctx, signal) => (Array.isArray(body) ? batch(body, headers, ctx, signal) : single(body, headers, ctx, signal)),
    close: () => modern.close(),
  };
}

/**
 * The SDK tells the console, once per handler, that JSON responses drop
 * mid-call notifications. This server sends none, and a plain line outside
 * the JSON logs breaks every log pipeline; any other console output passes.
 */
function withoutJsonModeNotice<T>(build: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith("responseMode: 'json' drops mid-call notifications")) return;
    warn(...args);
  };
  try {
    return build();
  } finally {
    console.warn = warn;
  }
}
