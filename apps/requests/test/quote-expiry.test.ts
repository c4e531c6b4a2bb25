// A quote's lifetime comes from QUOTE_LIFETIME_SECONDS, read by the service's
// configuration like every other variable. This file starts the service with
// a lifetime of one second and watches a quote expire: after that it cannot
// be read back, and a shop request naming it is a 422 on quote_id.
import { CatalogEnv, startService as startCatalog } from '@msa/catalog';
import { loadConfig, type RunningService } from '@msa/service-kit';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, createTestRedis, deleteByPattern, internalHeaders, testLogger, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RequestsEnv, startService } from '../src/index.js';
import { buildShopRequest, liveWriter } from './support.js';

let tr: TestRedis;
let catalog: RunningService;
let service: RunningService | undefined;
let queuePrefix: string;

beforeAll(async () => {
  tr = await createTestRedis('requests-quote-expiry');
  queuePrefix = `{${tr.prefix}intake}`;
  catalog = await startCatalog(
    loadConfig(CatalogEnv, { CATALOG_PORT: '0', CATALOG_ADMIN_PORT: '0', INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'silent' }),
    { logger: testLogger('catalog') },
  );
  const config = loadConfig(RequestsEnv, {
    REQUESTS_PORT: '0',
    REQUESTS_ADMIN_PORT: '0',
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    LOG_LEVEL: 'silent',
    REDIS_URL: tr.url,
    REDIS_KEY_PREFIX: tr.prefix,
    QUEUE_PREFIX: queuePrefix,
    CATALOG_URL: catalog.url,
    RECONCILE_INTERVAL_MS: '60000',
    QUOTE_LIFETIME_SECONDS: '1',
  });
  service = await startService(config, { logger: testLogger('requests') });
});

afterAll(async () => {
  await service?.close();
  await catalog?.close();
  await deleteByPattern(tr.redis, `${queuePrefix}*`);
  await tr?.cleanup();
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown, principal = liveWriter()) {
  const res = await fetch(`${service!.url}${path}`, {
    method,
    headers: { ...internalHeaders('requests', { principal }), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as { quote_id: string; created_at: string; expires_at: string; error: { fields: unknown } } };
}

describe('a quote past its lifetime (QUOTE_LIFETIME_SECONDS=1)', () => {
  it('expires a second after it was made: read-back is 404 and a shop request naming it is a 422 on quote_id', async () => {
    const principal = liveWriter();
    const made = await call('POST', '/v1/quotes', { organization_type: 'unternehmen', lines: [{ product: 'bio-polo-herren', quantity: 40 }] });
    expect(made.status).toBe(201);
    expect(Date.parse(made.body.expires_at) - Date.parse(made.body.created_at)).toBe(1000);
    const request = buildShopRequest({
      organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max Muster', email: 'max@muster.example' },
      quote_id: made.body.quote_id,
    });

    await vi.waitFor(async () => expect((await call('GET', `/v1/quotes/${made.body.quote_id}`)).status).toBe(404), { timeout: 5_000, interval: 100 });
    const refused = await call('POST', '/v1/shop-requests', request, principal);

    expect(refused.status).toBe(422);
    expect(refused.body.error.fields).toEqual([
      { field: 'quote_id', message: `unknown or expired quote '${made.body.quote_id}'; make a new one with POST /v1/quotes` },
    ]);
  });
});
