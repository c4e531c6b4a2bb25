// The built documents (pnpm build first): self-contained, small, and free of
// anything a host's CSP forbids.
import { describe, expect, it } from 'vitest';
import { VIEW_MIME_TYPE, VIEW_NAMES, VIEWS, viewHtml, viewOfTool } from '../dist/index.js';

const MAX_BYTES = 150 * 1024;

describe.each(VIEW_NAMES)('the %s document', (name) => {
  const html = viewHtml(name);

  it('is one HTML document of at most 150 KB', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(MAX_BYTES);
    expect(html).toContain(`data-view="${name}"`);
  });

  it('loads nothing from outside: no external script, style, image, font or frame', () => {
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/<img\b|<iframe\b|<image\b/i);
    expect(html).not.toMatch(/url\(|@import/i);
    expect(html).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).not.toMatch(/\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon/);
  });

  it('uses no eval or new Function, which a host CSP without unsafe-eval refuses', () => {
    expect(html).not.toMatch(/\beval\(|new Function\b|\bFunction\(/);
  });
});

describe('the view table', () => {
  it('names each view by a ui:// URI and serves it as text/html;profile=mcp-app', () => {
    expect(VIEW_MIME_TYPE).toBe('text/html;profile=mcp-app');
    for (const v of VIEWS) expect(v.uri).toMatch(/^ui:\/\/merch-shop\/[a-z-]+\.html$/);
  });

  it('gives products, quotes and shop requests a view, and the other tools none', () => {
    expect(viewOfTool('search_products')?.name).toBe('product-view');
    expect(viewOfTool('get_product')?.name).toBe('product-view');
    expect(viewOfTool('get_quote')?.name).toBe('quote-view');
    expect(viewOfTool('create_shop_request')?.name).toBe('request-view');
    expect(viewOfTool('get_shop_request')?.name).toBe('request-view');
    expect(viewOfTool('get_pricing')).toBeUndefined();
    expect(viewOfTool('list_public_shops')).toBeUndefined();
  });
});
