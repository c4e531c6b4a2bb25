// JSON-RPC 2.0 over postMessage between a view and its host, as the MCP Apps
// extension (SEP-1865) allows a view to speak it without the SDK's App class,
// whose bundle is far over the size a view may have. Only messages from the
// host window count; anything else posting to this window is ignored.

export type JsonRpcId = number | string;

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: JsonRpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** The host end: `window.parent` in a browser. */
export interface HostPort {
  postMessage(message: unknown, targetOrigin: string): void;
}

/** Where the host's messages arrive: `window` in a browser. */
export interface Inbox {
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}

/** A JSON-RPC error answer of the host, kept with its code and data. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

export type RequestHandler = (params: unknown) => unknown;
export type NotificationHandler = (params: unknown) => void;

export interface Bridge {
  request<T = unknown>(method: string, params?: unknown): Promise<T>;
  notify(method: string, params?: unknown): void;
  onRequest(method: string, handler: RequestHandler): void;
  onNotification(method: string, handler: NotificationHandler): void;
  close(): void;
}

const METHOD_NOT_FOUND = -32601;
const INTERNAL_ERROR = -32603;

function isMessage(data: unknown): data is JsonRpcMessage {
  return typeof data === 'object' && data !== null && (data as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

export function createBridge(host: HostPort, inbox: Inbox): Bridge {
  let nextId = 1;
  const pending = new Map<JsonRpcId, { resolve(v: unknown): void; reject(e: Error): void }>();
  const requestHandlers = new Map<string, RequestHandler>();
  const notificationHandlers = new Map<string, NotificationHandler>();

  const post = (message: JsonRpcMessage) => host.postMessage(message, '*');

  function answer(id: JsonRpcId, method: string, params: unknown): void {
    const handler = requestHandlers.get(method);
    if (!handler) return post({ jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: `Method not found: ${method}` } });
    Promise.resolve()
      .then(() => handler(params))
      .then(
        (result) => post({ jsonrpc: '2.0', id, result: result ?? {} }),
        (err: unknown) => post({ jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message: err instanceof Error ? err.message : String(err) } }),
      );
  }

  function settle(message: JsonRpcMessage): void {
    const waiting = message.id === undefined || message.id === null ? undefined : pending.get(message.id);
    if (!waiting || message.id === undefined || message.id === null) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new RpcError(message.error.code, message.error.message, message.error.data));
    else waiting.resolve(message.result);
  }

  const listener = (event: MessageEvent) => {
    if (event.source !== (host as unknown) || !isMessage(event.data)) return;
    const message = event.data;
    if (typeof message.method === 'string') {
      if (message.id !== undefined && message.id !== null) return answer(message.id, message.method, message.params);
      notificationHandlers.get(message.method)?.(message.params);
      return;
    }
    settle(message);
  };
  inbox.addEventListener('message', listener);

  return {
    request<T>(method: string, params?: unknown): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        post({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
      });
    },
    notify(method, params) {
      post({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
    },
    onRequest(method, handler) {
      requestHandlers.set(method, handler);
    },
    onNotification(method, handler) {
      notificationHandlers.set(method, handler);
    },
    close() {
      inbox.removeEventListener('message', listener);
      for (const waiting of pending.values()) waiting.reject(new Error('The view was closed.'));
      pending.clear();
    },
  };
}

/** What the host answers `ui/initialize` with (the parts a view reads). */
export interface InitializeResult {
  protocolVersion?: string;
  hostContext?: HostContext;
  hostCapabilities?: Record<string, unknown>;
}

export interface HostContext {
  theme?: 'light' | 'dark';
  locale?: string;
  timeZone?: string;
  styles?: { variables?: Record<string, string | undefined> };
  [key: string]: unknown;
}

export const UI_PROTOCOL_VERSION = '2026-01-26';

/**
 * The MCP Apps handshake: `ui/initialize`, then at once
 * `ui/notifications/initialized`, before anything is drawn; the host sends
 * tool input and result only after it.
 */
export async function connectToHost(bridge: Bridge, appInfo: { name: string; version: string }): Promise<InitializeResult> {
  const result = await bridge.request<InitializeResult>('ui/initialize', {
    appInfo,
    appCapabilities: { availableDisplayModes: ['inline'] },
    protocolVersion: UI_PROTOCOL_VERSION,
  });
  bridge.notify('ui/notifications/initialized', {});
  return result ?? {};
}
