// The `Mcp-Param-*` headers of MCP 2026-07-28: a client mirrors each tool
// argument whose schema names an `x-mcp-header` into such a header, so a
// proxy can route on it without reading the body. A value that is not plain
// printable ASCII travels Base64-encoded inside `=?base64?…?=`.
import { MCP_PARAM_HEADER_PREFIX } from '@msa/contracts';

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The lower-case name of the header that carries the argument mirrored as `name`. */
export function mcpParamHeaderName(name: string): string {
  return `${MCP_PARAM_HEADER_PREFIX}${name}`.toLowerCase();
}

/**
 * The value a client sent in `Mcp-Param-<name>`, decoded: `absent` without
 * the header, `invalid` for a sentinel whose payload is not canonical Base64
 * of UTF-8 (the protocol asks servers to reject it).
 */
export function mcpParamValue(headers: Headers | undefined, name: string): { kind: 'absent' } | { kind: 'invalid' } | { kind: 'value'; value: string } {
  const raw = headers?.get(mcpParamHeaderName(name)) ?? null;
  if (raw === null) return { kind: 'absent' };
  if (!(raw.startsWith(SENTINEL_PREFIX) && raw.endsWith(SENTINEL_SUFFIX) && raw.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length)) {
    return { kind: 'value', value: raw };
  }
  const payload = raw.slice(SENTINEL_PREFIX.length, raw.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(payload)) return { kind: 'invalid' };
  try {
    return { kind: 'value', value: new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(payload, 'base64')) };
  } catch {
    return { kind: 'invalid' };
  }
}

/** The `Mcp-Param-*` headers of an HTTP request, by lower-case name; the dispatcher hands them to the SDK and the tools. */
export function mcpParamHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const found: Record<string, string> = {};
  const prefix = MCP_PARAM_HEADER_PREFIX.toLowerCase();
  for (const [name, value] of Object.entries(headers)) {
    if (!name.toLowerCase().startsWith(prefix) || value === undefined) continue;
    found[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return found;
}
