// MCP Apps views (SEP-1865): offered to a host that advertises the
// extension, in both protocol eras and on both endpoints; every other client
// gets the lists it always got.
import { MCP_TOOLS } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  LEGACY_VERSION,
  MODERN_VERSION,
  legacyRequest,
  modernRequest,
  startMcpHarness,
  type McpHarness,
} from './support.js';

const UI = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
const VIEW_OF: Record<string, string> = {
  search_products: 'ui://merch-shop/product-view.html',
  get_product: 'ui://merch-shop/product-view.html',
  get_quote: 'ui://merch-shop/quote-view.html',
  create_shop_request: 'ui://merch-shop/request-view.html',
  get_shop_request: 'ui://merch-shop/request-view.html',
};
const SANDBOX = { ctx: { sandbox: true }, headers: { 'X-Forwarded-Prefix': '/sandbox' } };

let h: McpHarness;
beforeAll(async () => {
  h = await startMcpHarness('mcp-views');
});
afterAll(async () => {
  await h?.close();
});

type Tool = { name: string; _meta?: { ui?: { resourceUri?: string }; 'ui/resourceUri'?: string } };

async function viewSession(opts: { ctx?: Record<string, unknown>; headers?: Record<string, string> } = {}): Promise<string> {
  const init = legacyRequest('initialize', { protocolVersion: LEGACY_VERSION, capabilities: UI, clientInfo: { name: 'views-host', version: '1' } });
  const res = await h.rpc(init, opts).expect(200);
  return res.headers['mcp-session-id'] as string;
}

describe('a host that advertises MCP Apps in initialize', () => {
  it.each([
    ['/mcp', {}],
    ['/sandbox/mcp', SANDBOX],
  ])('on %s gets a session id that names the views, and tools that name their view', async (_path, opts) => {
    const session = await viewSession(opts);
    expect(session).toMatch(/^views-[0-9a-f]{32}$/);

    const res = await h.rpc(legacyRequest('tools/list'), { ...opts, headers: { ...(opts as { headers?: Record<string, string> }).headers, 'Mcp-Session-Id': session } }).expect(200);
    const tools = res.body.result.tools as Tool[];
    for (const t of tools) {
      expect(t._meta?.ui?.resourceUri, t.name).toBe(VIEW_OF[t.name]);
      expect(t._meta?.['ui/resourceUri']).toBeUndefined();
    }
    expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
  });

  it('lists the three views as text/html;profile=mcp-app resources', async () => {
    const session = await viewSession();
    const res = await h.rpc(legacyRequest('resources/list'), { headers: { 'Mcp-Session-Id': session } }).expect(200);
    const views = (res.body.result.resources as Array<{ uri: string; mimeType: string }>).filter((r) => r.uri.startsWith('ui://'));
    expect(views.map((r) => r.uri).sort()).toEqual([...new Set(Object.values(VIEW_OF))].sort());
    for (const v of views) expect(v.mimeType).toBe('text/html;profile=mcp-app');
  });
});

describe('a client without the extension', () => {
  it('gets no session id and tools/list exactly as before, without _meta', async () => {
    const init = await h.rpc(legacyRequest('initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'plain', version: '1' } })).expect(200);
    expect(init.headers['mcp-session-id']).toBeUndefined();

    const res = await h.rpc(legacyRequest('tools/list')).expect(200);
    for (const t of res.body.result.tools as Tool[]) expect(t._meta).toBeUndefined();
    const resources = await h.rpc(legacyRequest('resources/list')).expect(200);
    expect((resources.body.result.resources as Array<{ uri: string }>).some((r) => r.uri.startsWith('ui://'))).toBe(false);
  });
});

describe('a 2026-07-28 host', () => {
  it('gets the views when its per-request capabilities carry the extension', async () => {
    const { body, headers } = modernRequest('tools/list');
    body.params._meta['io.modelcontextprotocol/clientCapabilities'] = UI;
    const res = await h.rpc(body, { headers }).expect(200);
    const quote = (res.body.result.tools as Tool[]).find((t) => t.name === 'get_quote');
    expect(quote?._meta?.ui?.resourceUri).toBe(VIEW_OF.get_quote);
    expect(headers['MCP-Protocol-Version']).toBe(MODERN_VERSION);
  });

  it('gets none without it', async () => {
    const { body, headers } = modernRequest('tools/list');
    const res = await h.rpc(body, { headers }).expect(200);
    for (const t of res.body.result.tools as Tool[]) expect(t._meta).toBeUndefined();
  });
});

describe('reading a view', () => {
  it.each(Object.values(VIEW_OF).filter((v, i, all) => all.indexOf(v) === i))('serves %s as one HTML document with an empty CSP and no domain', async (uri) => {
    const res = await h.rpc(legacyRequest('resources/read', { uri })).expect(200);
    const [content] = res.body.result.contents as Array<{ uri: string; mimeType: string; text: string; _meta?: { ui?: Record<string, unknown> } }>;
    expect(content!.uri).toBe(uri);
    expect(content!.mimeType).toBe('text/html;profile=mcp-app');
    expect(content!.text).toMatch(/^<!doctype html>/);
    expect(Buffer.byteLength(content!.text)).toBeLessThanOrEqual(150 * 1024);
    expect(content!._meta?.ui).toEqual({ csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] } });
  });

  it('is answered on the sandbox endpoint too', async () => {
    const res = await h.rpc(legacyRequest('resources/read', { uri: VIEW_OF.get_quote }), SANDBOX).expect(200);
    expect(res.body.result.contents[0].mimeType).toBe('text/html;profile=mcp-app');
  });
});
