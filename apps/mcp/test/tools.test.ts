import { randomUUID } from 'node:crypto';
import { internalHeaders } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildShopRequest,
  callTool,
  livePrincipal,
  modernRequest,
  sandboxPrincipal,
  startMcpHarness,
  TEST_BASE_URL,
  type McpHarness,
} from './support.js';

let h: McpHarness;

beforeAll(async () => {
  h = await startMcpHarness('mcp-tools');
});

afterAll(async () => {
  await h?.close();
});

async function call(name: string, args: Record<string, unknown> = {}, ctx = {}, headers: Record<string, string> = {}) {
  const res = await h.rpc(callTool(name, args), { ctx, headers });
  expect(res.status).toBe(200);
  expect(res.body.error).toBeUndefined();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- structuredContent is deep JSON under test
  return res.body.result as { isError?: boolean; structuredContent: any; content: Array<{ type: string; text: string }> };
}

describe('tool search_products', () => {
  it('returns matching products as structured content and as JSON text', async () => {
    const result = await call('search_products', { q: 'hoodie', limit: 3 });

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.products.length).toBeGreaterThan(0);
    expect(result.structuredContent.products.length).toBeLessThanOrEqual(3);
    for (const p of result.structuredContent.products) expect(`${p.title} ${p.type} ${p.tags} ${p.description}`.toLowerCase()).toContain('hoodie');
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
  });

  it('lists the hoodies first, in the order the catalog ranks them', async () => {
    const result = await call('search_products', { q: 'hoodie' });
    const direct = await fetch(`${h.catalogUrl}/v1/products?q=hoodie`, { headers: internalHeaders('catalog') });

    const titles = result.structuredContent.products.map((p: { title: string }) => p.title);
    expect(titles.slice(0, 3)).toEqual(['Bio Hoodie Unisex', 'Bio Hoodie Kinder', 'Bio Zip-Hoodie']);
    expect(titles.at(-1)).toBe('Bio Longsleeve Unisex');
    const catalogHandles = ((await direct.json()) as { products: Array<{ handle: string }> }).products.map((p) => p.handle);
    expect(result.structuredContent.products.map((p: { handle: string }) => p.handle)).toEqual(catalogHandles);
  });

  it('filters by decoration and pages with limit and offset', async () => {
    const first = await call('search_products', { decoration: 'dtf', limit: 2, offset: 0 });
    const second = await call('search_products', { decoration: 'dtf', limit: 2, offset: 2 });

    expect(first.structuredContent.total).toBe(second.structuredContent.total);
    expect(second.structuredContent.offset).toBe(2);
    expect(second.structuredContent.products[0].handle).not.toBe(first.structuredContent.products[0].handle);
  });

  it('answers invalid arguments with the validation_failed envelope listing each field', async () => {
    const result = await call('search_products', { limit: 500, query: 'hoodie' });

    expect(result.isError).toBe(true);
    expect(result.structuredContent.error.code).toBe('validation_failed');
    expect(result.structuredContent.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['limit', 'query']);
    expect(result.content[0]!.text).toContain('validation_failed');
  });
});

describe('tool get_product', () => {
  it('returns one product with its volume tiers', async () => {
    const result = await call('get_product', { handle: 'bio-t-shirt-unisex' });

    expect(result.structuredContent).toMatchObject({ handle: 'bio-t-shirt-unisex', currency: 'EUR' });
    expect(result.structuredContent.quantity_prices_dtf.tiers.length).toBeGreaterThan(0);
  });

  it('answers an unknown handle with product_not_found and a hint to search', async () => {
    const result = await call('get_product', { handle: 'golden-unicorn-shirt' });

    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: 'product_not_found', status: 404 });
    expect(result.structuredContent.error.hint).toContain('search_products');
    expect(result.structuredContent.error.docs).toBe(`${TEST_BASE_URL}/developers#product_not_found`);
  });

  it('answers a malformed handle with validation_failed', async () => {
    const result = await call('get_product', { handle: 'Not A Handle' });

    expect(result.structuredContent.error.code).toBe('validation_failed');
    expect(result.structuredContent.error.fields[0].field).toBe('handle');
  });
});

describe('tool get_pricing', () => {
  it('returns the pricing overview', async () => {
    const result = await call('get_pricing');

    expect(result.structuredContent).toMatchObject({ currency: 'EUR', minimum_order_quantity: 1, shop_setup: { price: 0 } });
    expect(result.structuredContent.products.length).toBeGreaterThan(0);
  });
});

describe('tool list_public_shops', () => {
  it('lists shops, optionally by category', async () => {
    const all = await call('list_public_shops');
    const clubs = await call('list_public_shops', { category: 'verein' });

    expect(all.structuredContent.count).toBe(all.structuredContent.shops.length);
    expect(clubs.structuredContent.shops.every((s: { category: string }) => s.category === 'verein')).toBe(true);
    expect(clubs.structuredContent.count).toBeLessThanOrEqual(all.structuredContent.count);
  });

  it('refuses an unknown category', async () => {
    const result = await call('list_public_shops', { category: 'handwerk' });

    expect(result.structuredContent.error.code).toBe('validation_failed');
  });
});

describe('tool create_shop_request', () => {
  it('without credentials on /sandbox/mcp stores a sandbox request whose next steps explain live credentials', async () => {
    const result = await call('create_shop_request', buildShopRequest(), { principal: null, sandbox: true, ip: '198.51.100.7' });

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'received', sandbox: true, shop_type: 'b2c' });
    expect(result.structuredContent.id).toMatch(/^req_[0-9a-f]{16}$/);
    expect(result.structuredContent.next_steps).toContain('/v1/keys');
    expect(result.structuredContent.next_steps).toContain('Authorization: Bearer');
  });

  it('without credentials on /sandbox/mcp says first that it was stored on the sandbox, and how to authenticate on /mcp', async () => {
    const result = await call('create_shop_request', buildShopRequest(), { principal: null, sandbox: true });

    const plain = result.content[0]!.text;
    expect(plain).toMatch(/^Stored on the sandbox/);
    expect(plain).toContain(`${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp`);
    expect(plain).toContain(`POST ${TEST_BASE_URL}/v1/keys`);
    expect(result.structuredContent.warnings.join(' ')).not.toContain('Stored on');
    expect(result.structuredContent.next_steps).toContain(`${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp`);
    expect(JSON.parse(result.content[1]!.text)).toEqual(result.structuredContent);
  });

  it('with a live principal creates a live request', async () => {
    const result = await call('create_shop_request', buildShopRequest(), { principal: livePrincipal(), sandbox: false });

    expect(result.structuredContent).toMatchObject({ status: 'received', sandbox: false });
  });

  it('with a sandbox principal creates a sandbox request', async () => {
    const result = await call('create_shop_request', buildShopRequest(), { principal: sandboxPrincipal(), sandbox: true });

    expect(result.structuredContent.sandbox).toBe(true);
  });

  it('with a live principal on the sandbox path creates a sandbox request', async () => {
    const result = await call('create_shop_request', buildShopRequest(), { principal: livePrincipal(), sandbox: true });

    expect(result.structuredContent.sandbox).toBe(true);
  });

  it('replays the first result for a repeated idempotency key', async () => {
    const principal = sandboxPrincipal();
    const key = randomUUID();
    const args = { ...buildShopRequest(), idempotency_key: key };

    const first = await call('create_shop_request', args, { principal, sandbox: true });
    const second = await call('create_shop_request', args, { principal, sandbox: true });

    expect(second.structuredContent.id).toBe(first.structuredContent.id);
  });

  it('answers an invalid request with the requests service envelope and one field per problem', async () => {
    const result = await call(
      'create_shop_request',
      buildShopRequest({ shop_name: 'x'.repeat(81), products: [{ product: 'golden-unicorn-shirt' }], organization: { name: 'A', type: 'schule', contact_name: 'B', email: 'not-an-email' } }),
      { principal: sandboxPrincipal(), sandbox: true },
    );

    expect(result.isError).toBe(true);
    expect(result.structuredContent.error.code).toBe('validation_failed');
    const fields = result.structuredContent.error.fields.map((f: { field: string }) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['shop_name', 'organization.email']));
  });

  it('refuses an empty idempotency key', async () => {
    const result = await call('create_shop_request', { ...buildShopRequest(), idempotency_key: '' }, { principal: sandboxPrincipal(), sandbox: true });

    expect(result.structuredContent.error.code).toBe('validation_failed');
    expect(result.structuredContent.error.fields[0].field).toBe('idempotency_key');
  });

  it('refuses an idempotency key the Idempotency-Key header could not carry, on its own field', async () => {
    const result = await call('create_shop_request', { ...buildShopRequest(), idempotency_key: 'schlüssel 1' }, { principal: sandboxPrincipal(), sandbox: true });

    expect(result.structuredContent.error.code).toBe('validation_failed');
    expect(result.structuredContent.error.fields).toEqual([{ field: 'idempotency_key', message: 'must be visible ASCII characters, without spaces' }]);
  });
});

describe('tool get_shop_request', () => {
  it('reads back a request with the credentials that created it, as create_shop_request returned it', async () => {
    const principal = livePrincipal();
    const created = await call('create_shop_request', buildShopRequest({ shop_name: 'Lindenhof Lesebuch' }), { principal, sandbox: false });

    const read = await call('get_shop_request', { id: created.structuredContent.id }, { principal, sandbox: false });

    expect(read.isError).toBeFalsy();
    expect(read.structuredContent).toEqual(created.structuredContent);
    expect(JSON.parse(read.content[0]!.text)).toEqual(read.structuredContent);
  });

  it('reads a sandbox request back on either path, as the REST API does', async () => {
    const principal = sandboxPrincipal();
    const created = await call('create_shop_request', buildShopRequest(), { principal, sandbox: true });

    const onMcp = await call('get_shop_request', { id: created.structuredContent.id }, { principal, sandbox: false });

    expect(onMcp.structuredContent).toMatchObject({ id: created.structuredContent.id, sandbox: true });
  });

  it('answers an unknown id with the 404 envelope of the REST API and a hint to use the id create_shop_request returned', async () => {
    const read = await call('get_shop_request', { id: 'req_0000000000000000' }, { principal: livePrincipal(), sandbox: false });

    expect(read.isError).toBe(true);
    expect(read.structuredContent.error).toMatchObject({ code: 'shop_request_not_found', status: 404, docs: `${TEST_BASE_URL}/developers#shop_request_not_found` });
    expect(read.structuredContent.error.hint).toContain('create_shop_request');
    expect(read.content[0]!.text).toContain('Error 404 shop_request_not_found');
  });

  it("answers another principal's request with the 403 forbidden envelope of the REST API", async () => {
    const created = await call('create_shop_request', buildShopRequest(), { principal: livePrincipal(), sandbox: false });

    const read = await call('get_shop_request', { id: created.structuredContent.id }, { principal: livePrincipal(), sandbox: false });

    expect(read.isError).toBe(true);
    expect(read.structuredContent.error).toMatchObject({ code: 'forbidden', status: 403 });
    expect(read.structuredContent.error.hint).toContain('credentials that created');
  });

  it('without credentials on /sandbox/mcp reads back what the same address created there, and nothing else', async () => {
    const here = { principal: null, sandbox: true, ip: '198.51.100.23' };
    const created = await call('create_shop_request', buildShopRequest(), here);

    const same = await call('get_shop_request', { id: created.structuredContent.id }, here);
    const elsewhere = await call('get_shop_request', { id: created.structuredContent.id }, { ...here, ip: '198.51.100.24' });
    const withKey = await call('create_shop_request', buildShopRequest(), { principal: sandboxPrincipal(), sandbox: true });
    const keyed = await call('get_shop_request', { id: withKey.structuredContent.id }, here);

    expect(same.structuredContent).toMatchObject({ id: created.structuredContent.id, sandbox: true });
    expect(elsewhere.structuredContent.error.code).toBe('forbidden');
    expect(keyed.structuredContent.error.code).toBe('forbidden');
  });

  it('answers a malformed id with validation_failed on the field id', async () => {
    const read = await call('get_shop_request', { id: 'req_123' }, { principal: livePrincipal(), sandbox: false });

    expect(read.structuredContent.error.code).toBe('validation_failed');
    expect(read.structuredContent.error.fields.map((f: { field: string }) => f.field)).toEqual(['id']);
  });
});

describe('tool get_quote', () => {
  const companyQuote = { organization_type: 'unternehmen', lines: [{ product: 'bio-polo-herren', quantity: 40, colors: ['Navy'] }] };

  it('answers exact prices without credentials, as POST /v1/quotes does, and the quote can be read back', async () => {
    const result = await call('get_quote', companyQuote, { principal: null, sandbox: false });

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ shop_type: 'b2b', currency: 'EUR', total_net: 870.4, vat: 165.38, total_gross: 1035.78, warnings: [] });
    expect(result.structuredContent.lines).toEqual([
      expect.objectContaining({ handle: 'bio-polo-herren', quantity: 40, decoration: 'dtf', tier_from: 25, unit_net: 21.76, unit_gross: 25.9 }),
    ]);
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent);
    const stored = await fetch(`${h.requestsUrl}/v1/quotes/${result.structuredContent.quote_id}`, { headers: internalHeaders('requests') });
    expect(await stored.json()).toEqual(result.structuredContent);
  });

  it('prices a club by the gross from-price per piece and warns about paused embroidery', async () => {
    const result = await call('get_quote', { organization_type: 'verein', lines: [{ product: 'bio-polo-herren', quantity: 40, decoration: 'stick' }] });

    expect(result.structuredContent.lines[0]).toMatchObject({ tier_from: null, unit_gross: 29.9, total_gross: 1196 });
    expect(result.structuredContent.warnings).toEqual([expect.stringContaining('embroidery (stick) is paused')]);
  });

  it('answers an unknown product with the 422 envelope of the REST API, on its field', async () => {
    const result = await call('get_quote', { organization_type: 'unternehmen', lines: [{ product: 'golden-polo', quantity: 40 }] });

    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(result.structuredContent.error.fields).toEqual([{ field: 'lines.0.product', message: expect.stringContaining("unknown product 'golden-polo'") }]);
  });

  it('answers arguments that break the schema with validation_failed, one field each', async () => {
    const result = await call('get_quote', { organization_type: 'firma', lines: [{ product: 'bio-polo-herren', quantity: 0 }] });

    expect(result.structuredContent.error.code).toBe('validation_failed');
    expect(result.structuredContent.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['lines.0.quantity', 'organization_type']);
  });

  it('gives a quote_id that create_shop_request takes, and the request names it', async () => {
    const principal = sandboxPrincipal();
    const quote = await call('get_quote', companyQuote);

    const created = await call(
      'create_shop_request',
      buildShopRequest({
        organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max Muster', email: 'max@muster.example' },
        quote_id: quote.structuredContent.quote_id,
      }),
      { principal, sandbox: true },
    );

    expect(created.structuredContent).toMatchObject({ sandbox: true, quote_id: quote.structuredContent.quote_id });
  });
});

describe('create_shop_request with the Mcp-Param-Idempotency-Key header', () => {
  const sandbox = () => ({ principal: sandboxPrincipal(), sandbox: true });
  const base64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

  it('takes the key from the header alone and replays the first result', async () => {
    const ctx = sandbox();
    const headers = { 'Mcp-Param-Idempotency-Key': randomUUID() };

    const first = await call('create_shop_request', buildShopRequest(), ctx, headers);
    const second = await call('create_shop_request', buildShopRequest(), ctx, headers);

    expect(second.structuredContent.id).toBe(first.structuredContent.id);
  });

  it('takes a header and an argument that agree, and decodes a Base64 header', async () => {
    const ctx = sandbox();
    const key = randomUUID();

    const first = await call('create_shop_request', { ...buildShopRequest(), idempotency_key: key }, ctx, { 'Mcp-Param-Idempotency-Key': base64(key) });
    const second = await call('create_shop_request', { ...buildShopRequest(), idempotency_key: key }, ctx);

    expect(first.isError).toBeFalsy();
    expect(second.structuredContent.id).toBe(first.structuredContent.id);
  });

  it('refuses a header and an argument that differ with validation_failed on idempotency_key, creating nothing', async () => {
    const ctx = sandbox();
    const key = randomUUID();

    const refused = await call('create_shop_request', { ...buildShopRequest(), idempotency_key: key }, ctx, { 'Mcp-Param-Idempotency-Key': randomUUID() });
    const later = await call('create_shop_request', { ...buildShopRequest(), idempotency_key: key }, ctx);

    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error.code).toBe('validation_failed');
    expect(refused.structuredContent.error.fields).toEqual([{ field: 'idempotency_key', message: expect.stringContaining('mcp-param-idempotency-key') }]);
    expect(later.isError).toBeFalsy();
  });

  it('refuses a header whose Base64 does not decode', async () => {
    const result = await call('create_shop_request', buildShopRequest(), sandbox(), { 'Mcp-Param-Idempotency-Key': '=?base64?not base64!?=' });

    expect(result.structuredContent.error.fields[0].field).toBe('idempotency_key');
  });

  describe('from a 2026-07-28 client', () => {
    function modernCall(args: Record<string, unknown>, extra: Record<string, string> = {}) {
      const { body, headers } = modernRequest('tools/call', { name: 'create_shop_request', arguments: args }, 'create_shop_request');
      return h.rpc(body, { ctx: sandbox(), headers: { ...headers, ...extra } });
    }

    it('takes the argument with its mirrored header', async () => {
      const key = randomUUID();

      const res = await modernCall({ ...buildShopRequest(), idempotency_key: key }, { 'Mcp-Param-Idempotency-Key': key });

      expect(res.status).toBe(200);
      expect(res.body.result.structuredContent).toMatchObject({ status: 'received', sandbox: true });
    });

    it('takes the key from the header alone and replays the first result', async () => {
      const ctx = sandbox();
      const key = { 'Mcp-Param-Idempotency-Key': randomUUID() };
      const send = () => {
        const { body, headers } = modernRequest('tools/call', { name: 'create_shop_request', arguments: buildShopRequest() }, 'create_shop_request');
        return h.rpc(body, { ctx, headers: { ...headers, ...key } });
      };

      const first = await send();
      const second = await send();

      expect(first.body.result.structuredContent.id).toMatch(/^req_/);
      expect(second.body.result.structuredContent.id).toBe(first.body.result.structuredContent.id);
    });

    it('is refused by the protocol with 400 and -32020 when the header is missing or differs', async () => {
      const missing = await modernCall({ ...buildShopRequest(), idempotency_key: randomUUID() });
      const differs = await modernCall({ ...buildShopRequest(), idempotency_key: randomUUID() }, { 'Mcp-Param-Idempotency-Key': randomUUID() });

      for (const res of [missing, differs]) {
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe(-32020);
        expect(res.body.error.message).toContain('Mcp-Param-Idempotency-Key');
      }
    });
  });
});
