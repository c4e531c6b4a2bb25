import { afterEach, describe, expect, it } from 'vitest';
import { connectToHost, createBridge, RpcError, type Bridge, type HostPort } from './bridge.js';

/** A host window that records what the view posts and can post back. */
function fakeHost() {
  const inbox = new EventTarget();
  const sent: Array<Record<string, unknown>> = [];
  const host: HostPort = { postMessage: (m) => void sent.push(structuredClone(m) as Record<string, unknown>) };
  const deliver = (data: unknown, source: unknown = host) =>
    inbox.dispatchEvent(Object.assign(new Event('message'), { data, source }));
  return { host, inbox: inbox as unknown as Parameters<typeof createBridge>[1], sent, deliver };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('the view bridge', () => {
  let bridge: Bridge | undefined;
  afterEach(() => bridge?.close());

  it('resolves a request with the host answer of the same id', async () => {
    const h = fakeHost();
    bridge = createBridge(h.host, h.inbox);
    const answer = bridge.request('tools/call', { name: 'get_quote' });
    expect(h.sent[0]).toEqual({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_quote' } });

    h.deliver({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await expect(answer).resolves.toEqual({ content: [] });
  });

  it('rejects with the code and data of a host error', async () => {
    const h = fakeHost();
    bridge = createBridge(h.host, h.inbox);
    const answer = bridge.request('tools/call');
    h.deliver({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'needs sign-in', data: { status: 401 } } });

    const err = await answer.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect(err).toMatchObject({ code: -32000, message: 'needs sign-in', data: { status: 401 } });
  });

  it('ignores messages that do not come from the host window', async () => {
    const h = fakeHost();
    bridge = createBridge(h.host, h.inbox);
    let settled = false;
    void bridge.request('ping').then(
      () => (settled = true),
      () => undefined,
    );
    h.deliver({ jsonrpc: '2.0', id: 1, result: {} }, { postMessage() {} });
    await tick();
    expect(settled).toBe(false);
  });

  it('answers a host request with its handler, and an unknown one with -32601', async () => {
    const h = fakeHost();
    bridge = createBridge(h.host, h.inbox);
    bridge.onRequest('ui/resource-teardown', () => ({}));
    h.deliver({ jsonrpc: '2.0', id: 7, method: 'ui/resource-teardown', params: { reason: 'closed' } });
    h.deliver({ jsonrpc: '2.0', id: 8, method: 'ui/unknown' });
    await tick();
    expect(h.sent).toContainEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(h.sent).toContainEqual({ jsonrpc: '2.0', id: 8, error: { code: -32601, message: 'Method not found: ui/unknown' } });
  });

  it('hands notifications to their handler', () => {
    const h = fakeHost();
    bridge = createBridge(h.host, h.inbox);
    const seen: unknown[] = [];
    bridge.onNotification('ui/notifications/tool-result', (p) => seen.push(p));
    h.deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { structuredContent: { a: 1 } } });
    expect(seen).toEqual([{ structuredContent: { a: 1 } }]);
  });

  it('sends ui/initialize and, once answered, ui/notifications/initialized at once', async () => {
    const h = fakeHost();
    bridge = createBridge(h.host, h.inbox);
    const connected = connectToHost(bridge, { name: 'test', version: '1' });
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0]).toMatchObject({ method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appInfo: { name: 'test' } } });

    h.deliver({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2026-01-26', hostContext: { locale: 'de-DE', theme: 'dark' } } });
    const result = await connected;
    expect(result.hostContext).toEqual({ locale: 'de-DE', theme: 'dark' });
    expect(h.sent[1]).toEqual({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
  });
});
