// Authorization per tool, decided before the SDK runs a call. A tool with a
// `scope` in the contracts tools table (its operation's, from the operations
// table) needs credentials holding it; the refusal is
// an HTTP 401 or 403 with a Bearer challenge, because only the HTTP status
// makes an OAuth-capable host start (or step up) authorization. A tool error
// inside a 200 would only be shown to the model.
import { MCP_TOOLS, type CallContext, type Scope } from '@msa/contracts';

/** Why a call may not run: no credentials at all, or credentials without the tool's scope. */
export interface ToolRefusal {
  reason: 'unauthorized' | 'insufficient_scope';
  tool: string;
  scope: Scope;
}

const TOOL_SCOPES: ReadonlyMap<string, Scope> = new Map(MCP_TOOLS.flatMap((t) => (t.scope ? [[t.name, t.scope] as const] : [])));

/** The tool a JSON-RPC message calls, if it is a `tools/call`. */
function calledTool(message: unknown): string | undefined {
  if (!message || typeof message !== 'object') return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (method !== 'tools/call' || !params || typeof params !== 'object') return undefined;
  const { name } = params as { name?: unknown };
  return typeof name === 'string' ? name : undefined;
}

function refusalOf(message: unknown, ctx: CallContext): ToolRefusal | null {
  const tool = calledTool(message);
  const scope = tool === undefined ? undefined : TOOL_SCOPES.get(tool);
  if (tool === undefined || scope === undefined) return null;
  // Without credentials the sandbox still takes the call: the request is owned by the client IP and never sent.
  if (!ctx.principal) return ctx.sandbox ? null : { reason: 'unauthorized', tool, scope };
  return ctx.principal.scopes.includes(scope) ? null : { reason: 'insufficient_scope', tool, scope };
}

/**
 * The first call in a body (one message or a batch) the caller may not make,
 * or null. A batch holding one is refused whole: the host has to authorize
 * before any of it runs, and then sends it again.
 */
export function toolRefusal(body: unknown, ctx: CallContext): ToolRefusal | null {
  for (const message of Array.isArray(body) ? body : [body]) {
    const refusal = refusalOf(message, ctx);
    if (refusal) return refusal;
  }
  return null;
}

/**
 * The RFC 9728 metadata address of the MCP resource the caller addressed,
 * in the path-insertion form the gateway names in its own challenges, so a
 * host sees one address per resource whoever challenges it.
 */
export function mcpResourceMetadataUrl(root: string, sandboxPath: boolean): string {
  return `${root}/.well-known/oauth-protected-resource${sandboxPath ? '/sandbox' : ''}/mcp`;
}

/** The `WWW-Authenticate` value; a request without credentials gets no error code (RFC 6750 §3.1). */
export function bearerChallenge(refusal: ToolRefusal, metadataUrl: string): string {
  if (refusal.reason === 'unauthorized') return `Bearer resource_metadata="${metadataUrl}", scope="${refusal.scope}"`;
  return `Bearer error="insufficient_scope", scope="${refusal.scope}", resource_metadata="${metadataUrl}"`;
}
