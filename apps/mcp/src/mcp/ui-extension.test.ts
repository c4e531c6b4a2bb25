import { describe, expect, it } from 'vitest';
import { initializeOffersViews, messageOffersViews, offersViews, viewSessionId } from './ui-extension.js';

const ui = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

describe('which clients get the views', () => {
  it('recognizes the extension in client capabilities, with our MIME type or none listed', () => {
    expect(offersViews(ui)).toBe(true);
    expect(offersViews({ extensions: { 'io.modelcontextprotocol/ui': {} } })).toBe(true);
    expect(offersViews({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/uri-list'] } } })).toBe(false);
    expect(offersViews({})).toBe(false);
    expect(offersViews({ experimental: { 'io.modelcontextprotocol/ui': {} } })).toBe(false);
  });

  it('gives a view session id only to an initialize that advertises the extension', () => {
    expect(initializeOffersViews({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: ui } })).toBe(true);
    expect(initializeOffersViews({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } })).toBe(false);
    expect(initializeOffersViews({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { capabilities: ui } })).toBe(false);
  });

  it('offers the views on a later request that repeats the view session id', () => {
    expect(messageOffersViews({ method: 'tools/list' }, viewSessionId())).toBe(true);
    expect(viewSessionId()).toMatch(/^views-[0-9a-f]{32}$/);
    expect(messageOffersViews({ method: 'tools/list' }, 'some-other-session')).toBe(false);
    expect(messageOffersViews({ method: 'tools/list' }, undefined)).toBe(false);
  });

  it('offers the views to a 2026-07-28 request that carries the extension in its capabilities', () => {
    const message = { method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': ui } } };
    expect(messageOffersViews(message, undefined)).toBe(true);
    expect(messageOffersViews({ method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } } }, undefined)).toBe(false);
  });

  it('answers a read of a ui:// resource from anyone', () => {
    expect(messageOffersViews({ method: 'resources/read', params: { uri: 'ui://merch-shop/quote-view.html' } }, undefined)).toBe(true);
    expect(messageOffersViews({ method: 'resources/read', params: { uri: 'msa://docs/llms.txt' } }, undefined)).toBe(false);
  });
});
