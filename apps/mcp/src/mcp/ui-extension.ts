// MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865): which
// messages come from a host that renders views. Only such a host sees the
// tools' `_meta.ui` and the `ui://` resources in its lists; every other
// client gets exactly the lists it always got.
//
// This server keeps no sessions, yet a 2025-era host advertises the extension
// once, in `initialize`, and lists tools in a later POST. So the answer to
// such an `initialize` carries an `Mcp-Session-Id` that says so itself
// (`views-` and random hex): the host repeats it on every request, and
// nothing is stored. A 2026-07-28 host sends its capabilities with each
// request, in `_meta`.
import { VIEW_MIME_TYPE } from '@msa/views';
import { randomBytes } from 'node:crypto';

export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';
const VIEW_SESSION_PREFIX = 'views-';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether client capabilities advertise MCP Apps with our MIME type (or with no list, as early hosts did). */
export function offersViews(capabilities: unknown): boolean {
  if (!isObject(capabilities) || !isObject(capabilities.extensions)) return false;
  const ui = capabilities.extensions[UI_EXTENSION_ID];
  if (!isObject(ui)) return false;
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(VIEW_MIME_TYPE);
}

function paramsOf(message: unknown): Record<string, unknown> {
  return isObject(message) && isObject(message.params) ? message.params : {};
}

/** An `initialize` from a host that renders views: its answer gets a view session id. */
export function initializeOffersViews(message: unknown): boolean {
  return isObject(message) && message.method === 'initialize' && offersViews(paramsOf(message).capabilities);
}

/** A 2026-07-28 request whose per-request capabilities advertise the extension. */
function envelopeOffersViews(message: unknown): boolean {
  const meta = paramsOf(message)._meta;
  return isObject(meta) && offersViews(meta[CLIENT_CAPABILITIES_META]);
}

/** A read of a view: always answered, whoever asks (hosts prefetch before they list). */
function readsView(message: unknown): boolean {
  const params = paramsOf(message);
  return isObject(message) && message.method === 'resources/read' && typeof params.uri === 'string' && params.uri.startsWith('ui://');
}

export function viewSessionId(): string {
  return `${VIEW_SESSION_PREFIX}${randomBytes(16).toString('hex')}`;
}

/**
 * Whether this message's server offers the views: the session id of a host
 * that advertised the extension, the extension in the request's own
 * capabilities, or a read of a `ui://` resource.
 */
export function messageOffersViews(message: unknown, sessionId: string | undefined): boolean {
  return (sessionId?.startsWith(VIEW_SESSION_PREFIX) ?? false) || envelopeOffersViews(message) || readsView(message);
}
