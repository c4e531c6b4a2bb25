// Shared set-up of the component tests: the real catalog, shops and requests
// services on free ports over a real Redis (own key and BullMQ prefix per
// file), and the mcp app in front of them, called as the gateway calls it.
import { CatalogEnv, startService as startCatalog } from '@msa/catalog';
import {
  createCatalogClient,
  createRequestsClient,
  createShopsClient,
  type CallContext,
  type Principal,
  type ShopRequestInput,
} from '@msa/contracts';
import { RequestsEnv, startService as startRequests } from '@msa/requests';
import { createMetrics, loadConfig, type RunningService } from '@msa/service-kit';
import { ShopsEnv, startService as startShops } from '@msa/shops';
import {
  TEST_BASE_URL,
  TEST_INTERNAL_SECRET,
  buildPrincipal,
  createTestRedis,
  internalHeaders,
  testLogger,
  testSigner,
} from '@msa/test-kit';
import type { Express } from 'express';
import request from 'supertest';
import { createMcpApp, type AppDeps } from '../src/app.js';

export { TEST_BASE_URL, buildPrincipal };

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';

export interface RpcOptions {
  ctx?: Partial<CallContext>;
  headers?: Record<string, string>;
}

export interface McpHarness {
  app: Express;
  catalogUrl: string;
  /** The requests service the tools call, for checking what they stored. */
  requestsUrl: string;
  /** POSTs a raw JSON-RPC body (object, array or string) to /mcp as the gateway would. */
  rpc(body: unknown, opts?: RpcOptions): request.Test;
  close(): Promise<void>;
}

export async function startMcpHarness(name: string, overrides: Partial<AppDeps> = {}): Promise<McpHarness> {
  const tr = await createTestRedis(name);
  const common = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: TEST_BASE_URL,
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    REDIS_URL: tr.url,
    REDIS_KEY_PREFIX: tr.prefix,
    QUEUE_PREFIX: `{${tr.prefix}intake}`,
  };
  const running: RunningService[] = [];
  try {
    const catalog = await startCatalog(loadConfig(CatalogEnv, { ...common, CATALOG_PORT: '0', CATALOG_ADMIN_PORT: '0' }));
    running.push(catalog);
    const shops = await startShops(loadConfig(ShopsEnv, { ...common, SHOPS_PORT: '0', SHOPS_ADMIN_PORT: '0' }));
    running.push(shops);
    const requests = await startRequests(
      loadConfig(RequestsEnv, { ...common, REQUESTS_PORT: '0', REQUESTS_ADMIN_PORT: '0', CATALOG_URL: catalog.url, RECONCILE_INTERVAL_MS: '600000' }),
    );
    running.push(requests);

    const { app, dispatcher } = createMcpApp({
      catalog: createCatalogClient({ baseUrl: catalog.url, sign: testSigner }),
      shops: createShopsClient({ baseUrl: shops.url, sign: testSigner }),
      requests: createRequestsClient({ baseUrl: requests.url, sign: testSigner }),
      publicBaseUrl: TEST_BASE_URL,
      internalAuthSecret: TEST_INTERNAL_SECRET,
      production: false,
      logger: testLogger('mcp'),
      metrics: createMetrics('mcp'),
      ...overrides,
    });

    return {
      app,
      catalogUrl: catalog.url,
      requestsUrl: requests.url,
      rpc(body, opts = {}) {
        return request(app)
          .post('/mcp')
          .set(internalHeaders('mcp', opts.ctx ?? {}))
          .set('Content-Type', 'application/json')
          .set('Accept', 'application/json, text/event-stream')
          .set(opts.headers ?? {})
          .send(typeof body === 'string' ? body : JSON.stringify(body));
      },
      async close() {
        await dispatcher.close();
        for (const s of running.reverse()) await s.close();
        await tr.cleanup();
      },
    };
  } catch (err) {
    for (const s of running.reverse()) await s.close().catch(() => undefined);
    await tr.cleanup();
    throw err;
  }
}

let nextId = 1;

/** A 2025-era request (no per-request envelope). */
export function legacyRequest(method: string, params?: Record<string, unknown>) {
  return { jsonrpc: '2.0', id: nextId++, method, ...(params ? { params } : {}) };
}

export function initializeRequest(protocolVersion = LEGACY_VERSION) {
  return legacyRequest('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'component-test', version: '1.0.0' } });
}

export function callTool(name: string, args: Record<string, unknown> = {}) {
  return legacyRequest('tools/call', { name, arguments: args });
}

/** A 2026-07-28 request: the per-request `_meta` envelope and the headers that must match it. */
export function modernRequest(method: string, params: Record<string, unknown> = {}, name?: string) {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'component-test', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
  const headers: Record<string, string> = { 'MCP-Protocol-Version': MODERN_VERSION, 'Mcp-Method': method, ...(name ? { 'Mcp-Name': name } : {}) };
  return { body, headers };
}

export function buildShopRequest(overrides: Partial<ShopRequestInput> = {}): ShopRequestInput {
  return {
    organization: {
      name: 'Grundschule am Lindenhof',
      type: 'schule',
      contact_name: 'Jonas Beispiel',
      email: 'jonas.beispiel@example.org',
    },
    shop_name: 'Lindenhof Schulshop',
    products: [{ product: 'bio-t-shirt-kinder', colors: ['Navy'], designs: [{ width_cm: 20 }] }],
    ...overrides,
  };
}

export const livePrincipal = (overrides: Partial<Principal> = {}) => buildPrincipal({ mode: 'live', ...overrides });
export const sandboxPrincipal = (overrides: Partial<Principal> = {}) => buildPrincipal({ mode: 'sandbox', ...overrides });
