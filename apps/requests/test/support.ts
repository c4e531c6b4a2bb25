// Shared set-up of the component tests: the real requests app over a real
// Redis (own key and BullMQ prefix per file), the real catalog app on a free
// port, a real BullMQ queue, and helpers to call the app as the gateway would.
import { createCatalogClient, type CallContext, type Principal, type ShopRequestInput } from '@msa/contracts';
import { CatalogEnv, startService as startCatalog } from '@msa/catalog';
import { createInternalSigner, createMetrics, loadConfig, type Logger, type RunningService } from '@msa/service-kit';
import { createRedis, keysMatching, type ReplicationOptions } from '@msa/service-kit/redis';
import {
  TEST_BASE_URL,
  TEST_INTERNAL_SECRET,
  buildPrincipal,
  createTestRedis,
  deleteByPattern,
  internalHeaders,
  testLogger,
  type TestRedis,
} from '@msa/test-kit';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { createApp, createShopRequestCounters } from '../src/app.js';
import { RequestsEnv } from '../src/config.js';
import { createProductCatalog } from '../src/catalog/product-catalog.js';
import type { ProductCatalog } from '../src/catalog/product-catalog.js';
import { createIntakeQueue, type IntakeQueue } from '../src/intake/intake-queue.js';
import { createQuoteQuotas, type QuoteQuotaLimits, type QuoteQuotas } from '../src/store/quote-quotas.js';
import { createQuoteStore, type QuoteStore } from '../src/store/quote-store.js';
import { createShopRequestQuotas, type ShopRequestQuotaLimits, type ShopRequestQuotas } from '../src/store/shop-request-quotas.js';
import { createIntakeCopies } from '../src/privacy/store/intake-copies.js';
import { createRequestIndex } from '../src/privacy/store/request-index.js';
import {
  allShopRequestIds,
  createShopRequestStore,
  type ShopRequestEraser,
  type ShopRequestStore,
  type ShopRequestStoreOptions,
} from '../src/store/shop-request-store.js';

export { TEST_BASE_URL, buildPrincipal };

export function buildShopRequest(overrides: Partial<ShopRequestInput> = {}): ShopRequestInput {
  return {
    organization: {
      name: 'TSV Musterstadt 1899 e.V.',
      type: 'verein',
      contact_name: 'Eva Muster',
      email: 'eva.muster@tsv-musterstadt.example',
    },
    shop_name: 'TSV Musterstadt Fanshop',
    products: [{ product: 'bio-t-shirt-unisex', colors: ['Schwarz'], designs: [{ width_cm: 25 }] }],
    ...overrides,
  };
}

export const liveWriter = (overrides: Partial<Principal> = {}) => buildPrincipal({ mode: 'live', ...overrides });
export const sandboxWriter = (overrides: Partial<Principal> = {}) => buildPrincipal({ mode: 'sandbox', ...overrides });

export interface CallOptions {
  principal?: Principal | null;
  sandbox?: boolean;
  ip?: string;
  idempotencyKey?: string;
}

export interface Harness {
  app: Express;
  redis: Redis;
  prefix: string;
  queuePrefix: string;
  store: ShopRequestStore & ShopRequestEraser;
  quotas: ShopRequestQuotas;
  quotes: QuoteStore;
  quoteQuotas: QuoteQuotas;
  /** The queue the app enqueues on (a real BullMQ queue unless the test gave its own). */
  intake: IntakeQueue & { queue: ReturnType<typeof createIntakeQueue>['queue'] };
  catalogUrl: string;
  logger: Logger;
  post(body: unknown, opts?: CallOptions): request.Test;
  get(id: string, opts?: CallOptions): request.Test;
  postQuote(body: unknown, opts?: CallOptions): request.Test;
  getQuote(id: string, opts?: CallOptions): request.Test;
  /** A POST to an internal route, as identity calls it. */
  internal(path: string, body: unknown): request.Test;
  /** Every stored shop request record under this file's prefix. */
  recordCount(): Promise<number>;
  /** Builds a second queue on this file's Redis and BullMQ prefix (closed with the harness). */
  openQueue(): IntakeQueue & { queue: ReturnType<typeof createIntakeQueue>['queue'] };
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Replaces the queue the app enqueues on (e.g. one whose Redis is unreachable). */
  intake?: Pick<IntakeQueue, 'enqueue'>;
  /** Replaces the store the app writes to (e.g. one whose Redis is unreachable). */
  store?: ShopRequestStore;
  now?: () => Date;
  /** Replaces the catalog the app resolves products against (e.g. one whose prices change). */
  catalog?: ProductCatalog;
  /** QUOTE_LIFETIME_SECONDS; the default of the service's configuration otherwise. */
  quoteLifetimeSeconds?: number;
  /** The store's size bound and live retention; the defaults otherwise. */
  storeOptions?: ShopRequestStoreOptions;
  /** REDIS_WAIT_REPLICAS and REDIS_WAIT_TIMEOUT_MS for the app and its queue; off otherwise. */
  replication?: ReplicationOptions;
  /** SANDBOX_REQUESTS_PER_ADDRESS_PER_DAY and LIVE_REQUESTS_PER_DOMAIN_PER_DAY; the defaults otherwise. */
  quotaLimits?: ShopRequestQuotaLimits;
  /** QUOTES_PER_PRINCIPAL_PER_DAY and QUOTES_PER_ADDRESS_PER_DAY; the defaults otherwise. */
  quoteQuotaLimits?: QuoteQuotaLimits;
}

function headers(opts: CallOptions): Record<string, string> {
  const ctx: Partial<CallContext> = {
    principal: opts.principal === undefined ? null : opts.principal,
    sandbox: opts.sandbox ?? false,
    ...(opts.ip ? { ip: opts.ip } : {}),
  };
  return {
    ...internalHeaders('requests', ctx),
    ...(opts.idempotencyKey ? { 'idempotency-key': opts.idempotencyKey } : {}),
  };
}

export async function startHarness(name: string, opts: HarnessOptions = {}): Promise<Harness> {
  const tr: TestRedis = await createTestRedis(`requests-${name}`);
  const logger = testLogger('requests');
  const catalogConfig = loadConfig(CatalogEnv, {
    CATALOG_PORT: '0',
    CATALOG_ADMIN_PORT: '0',
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'silent',
  });
  const catalogService: RunningService = await startCatalog(catalogConfig, { logger: testLogger('catalog') });

  const queuePrefix = `{${tr.prefix}intake}`;
  const connections: Redis[] = [];
  const queues: IntakeQueue[] = [];
  const openQueue = () => {
    const connection = createRedis(tr.url, 'api');
    connections.push(connection);
    const q = createIntakeQueue({ connection, prefix: queuePrefix, attempts: 8, backoffMs: 2000, logger, ...(opts.replication ? { replication: opts.replication } : {}) });
    queues.push(q);
    return q;
  };
  const intake = openQueue();
  const index = createRequestIndex(tr.redis, tr.prefix, TEST_INTERNAL_SECRET);
  const store = createShopRequestStore(tr.redis, tr.prefix, { index, ...opts.storeOptions });
  const quotas = createShopRequestQuotas(tr.redis, tr.prefix, opts.quotaLimits);
  const quotes = createQuoteStore(tr.redis, tr.prefix);
  const quoteQuotas = createQuoteQuotas(tr.redis, tr.prefix, opts.quoteQuotaLimits);
  const catalogClient = createCatalogClient({ baseUrl: catalogService.url, sign: createInternalSigner(TEST_INTERNAL_SECRET) });
  const metrics = createMetrics('requests');
  const app = createApp({
    logger,
    publicBaseUrl: TEST_BASE_URL,
    internalAuthSecret: TEST_INTERNAL_SECRET,
    redis: tr.redis,
    keyPrefix: tr.prefix,
    store: opts.store ?? store,
    quotas,
    quotes,
    quoteQuotas,
    quoteLifetimeSeconds: opts.quoteLifetimeSeconds ?? loadConfig(RequestsEnv, { INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET }).QUOTE_LIFETIME_SECONDS,
    catalog: opts.catalog ?? createProductCatalog({ listAllProducts: (ctx) => catalogClient.listAllProducts(ctx), logger }),
    intake: opts.intake ?? intake,
    metrics,
    counters: createShopRequestCounters(metrics),
    now: opts.now,
    ...(opts.replication ? { replication: opts.replication } : {}),
    privacy: {
      store,
      index,
      intakeCopies: createIntakeCopies(tr.redis, tr.prefix),
      dropIntakeJob: (id) => intake.drop(id),
      allRequestIds: () => allShopRequestIds(tr.redis, tr.prefix),
      ...(opts.now ? { now: opts.now } : {}),
    },
  });

  return {
    app,
    redis: tr.redis,
    prefix: tr.prefix,
    queuePrefix,
    store,
    quotas,
    quotes,
    quoteQuotas,
    intake,
    catalogUrl: catalogService.url,
    logger,
    post: (body, callOpts = {}) => request(app).post('/v1/shop-requests').set(headers(callOpts)).send(body as object),
    get: (id, callOpts = {}) => request(app).get(`/v1/shop-requests/${id}`).set(headers(callOpts)),
    postQuote: (body, callOpts = {}) => request(app).post('/v1/quotes').set(headers(callOpts)).send(body as object),
    getQuote: (id, callOpts = {}) => request(app).get(`/v1/quotes/${id}`).set(headers(callOpts)),
    internal: (path, body) => request(app).post(path).set(headers({})).send(body as object),
    async recordCount() {
      return (await keysMatching(tr.redis, `${tr.prefix}shop-request:req_*`)).length;
    },
    openQueue,
    async close() {
      for (const q of queues) await q.close();
      for (const c of connections) c.disconnect();
      await catalogService.close();
      await deleteByPattern(tr.redis, `${queuePrefix}*`);
      await tr.cleanup();
    },
  };
}

export { keysMatching };

/** A Redis URL on a loopback port nobody listens on. */
export async function closedRedisUrl(): Promise<string> {
  const net = await import('node:net');
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 1));
    });
  });
  return `redis://127.0.0.1:${port}`;
}
