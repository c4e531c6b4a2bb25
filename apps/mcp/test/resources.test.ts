import { OPERATION_IDS } from '@msa/contracts';
import { internalHeaders } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, legacyRequest, startMcpHarness, type McpHarness } from './support.js';

let h: McpHarness;

beforeAll(async () => {
  h = await startMcpHarness('mcp-resources');
});

afterAll(async () => {
  await h?.close();
});

async function read(uri: string, sandbox = false) {
  const res = await h.rpc(legacyRequest('resources/read', { uri }), { ctx: { sandbox } });
  expect(res.status).toBe(200);
  expect(res.body.error).toBeUndefined();
  const [content] = res.body.result.contents as Array<{ uri: string; mimeType: string; text: string }>;
  return content!;
}

describe('MCP resources', () => {
  it('reads llms.txt as Markdown for the caller environment', async () => {
    const live = await read('msa://docs/llms.txt');
    const sandbox = await read('msa://docs/llms.txt', true);

    expect(live.mimeType).toBe('text/markdown');
    expect(live.text).toMatch(/^# Merch-Shop Agent API/);
    expect(live.text).toContain(`${TEST_BASE_URL}/v1/products`);
    expect(sandbox.text).toContain(`${TEST_BASE_URL}/sandbox/v1/products`);
  });

  it('reads agents.md', async () => {
    const doc = await read('msa://docs/agents.md');

    expect(doc.text).toContain('Idempotency-Key');
  });

  it('reads the OpenAPI document with every operation', async () => {
    const doc = await read('msa://docs/openapi.json');

    const openapi = JSON.parse(doc.text);
    const ids = Object.values(openapi.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(openapi.openapi).toBe('3.1.0');
    expect(ids).toEqual(expect.arrayContaining([...OPERATION_IDS]));
  });

  it('reads every product, fetched live from the catalog', async () => {
    const doc = await read('msa://catalog/products');
    const direct = await fetch(`${h.catalogUrl}/v1/products?limit=250`, { headers: internalHeaders('catalog') });

    const body = JSON.parse(doc.text);
    expect(body.total).toBe(((await direct.json()) as { total: number }).total);
    expect(body.total).toBe(body.products.length);
    expect(body.total).toBeGreaterThan(20);
    expect(body.products.map((p: { handle: string }) => p.handle)).toContain('bio-t-shirt-unisex');
  });

  it('reads pricing and public shops', async () => {
    const pricing = JSON.parse((await read('msa://catalog/pricing')).text);
    const shops = JSON.parse((await read('msa://shops/public')).text);

    expect(pricing.minimum_order_quantity).toBe(1);
    expect(shops.count).toBe(shops.shops.length);
  });

  it('answers an unknown URI with a JSON-RPC error', async () => {
    const res = await h.rpc(legacyRequest('resources/read', { uri: 'msa://nothing/here' }));

    expect(res.body.error.code).toBe(-32602);
  });
});
