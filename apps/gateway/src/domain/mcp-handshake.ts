// Which POST /mcp bodies are an MCP handshake. A stateless MCP client opens
// every connection with `initialize` and `notifications/initialized` (or, in
// the 2026-07-28 revision, `server/discover`); counting those against the
// anonymous minute made a client that connects often (the conformance suite,
// an agent host that reconnects per task) spend half its budget on hellos.
// Handshakes get their own per-minute bucket instead; everything that reads
// or writes data (tools/*, resources/*) still counts as a request.

const HANDSHAKE_METHODS = new Set(['initialize', 'notifications/initialized', 'server/discover']);

function isHandshakeMessage(message: unknown): boolean {
  if (!message || typeof message !== 'object' || Array.isArray(message)) return false;
  const method = (message as { method?: unknown }).method;
  return typeof method === 'string' && HANDSHAKE_METHODS.has(method);
}

/** True when the parsed body is a handshake message, or a batch of nothing else. */
export function isMcpHandshake(body: unknown): boolean {
  if (Array.isArray(body)) return body.length > 0 && body.every(isHandshakeMessage);
  return isHandshakeMessage(body);
}

/** The JSON-RPC messages a parsed body carries: each element of a batch is one, anything else is one request. */
export function messageCount(body: unknown): number {
  return Array.isArray(body) && body.length > 0 ? body.length : 1;
}
