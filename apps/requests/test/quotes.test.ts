import { CatalogEnv, startService as startCatalog } from '@msa/catalog';
import { IntakeJob, LIMITS, Quote, createCatalogClient, type Product, type QuoteInput } from '@msa/contracts';
import { createInternalSigner, loadConfig, type RunningService } from '@msa/service-kit';
import { TEST_INTERNAL_SECRET, buildContext, internalHeaders, testLogger } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductCatalog } from '../src/catalog/product-catalog.js';
import { createProductIndex } from '../src/domain/product-index.js';
import { TEST_BASE_URL, buildPrincipal, buildShopRequest, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

const QUOTE_ID = /^quo_[0-9a-f]{16}$/;
const cents = (euros: number) => Math.round(euros * 100);

function buildQuote(overrides: Partial<QuoteInput> = {}): QuoteInput {
  return { organization_type: 'unternehmen', lines: [{ product: 'bio-polo-herren', quantity: 40, colors: ['Navy'] }], ...overrides };
}

describe('POST /v1/quotes and GET /v1/quotes/{id}', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('quotes');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers 201 with the quote and its Location, stores it for its lifetime, and reads it back for anyone with the id', async () => {
    const before = Date.now();

    const res = await h.postQuote(buildQuote());

    expect(res.status).toBe(201);
    expect(Quote.parse(res.body)).toEqual(res.body);
    expect(res.body.quote_id).toMatch(QUOTE_ID);
    expect(res.headers.location).toBe(`${TEST_BASE_URL}/v1/quotes/${res.body.quote_id}`);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBe(LIMITS.quoteLifetimeDays * 86_400_000);
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const ttl = await h.redis.pttl(`${h.prefix}quote:{${res.body.quote_id}}`);
    expect(ttl).toBeGreaterThan(LIMITS.quoteLifetimeDays * 86_400_000 - 60_000);
    const other = await h.getQuote(res.body.quote_id, { principal: buildPrincipal({ scopes: ['catalog:read'] }) });
    expect(other.status).toBe(200);
    expect(other.body).toEqual(res.body);
    expect((await h.getQuote(res.body.quote_id)).body).toEqual(res.body);
  });

  it('puts the sandbox path into the Location of a quote made there', async () => {
    const res = await h.postQuote(buildQuote(), { principal: sandboxWriter(), sandbox: true });

    expect(res.headers.location).toBe(`${TEST_BASE_URL}/sandbox/v1/quotes/${res.body.quote_id}`);
  });

  it.each([
    [9, 1, 25.13],
    [10, 10, 23.45],
    [24, 10, 23.45],
    [25, 25, 21.76],
    [49, 25, 21.76],
    [50, 50, 20.59],
    [99, 50, 20.59],
    [100, 100, 19.75],
  ])('prices %i polo shirts for a company at the tier from %i (%f net)', async (quantity, tierFrom, unitNet) => {
    const res = await h.postQuote(buildQuote({ lines: [{ product: 'bio-polo-herren', quantity }] }));

    expect(res.body.lines[0]).toMatchObject({ tier_from: tierFrom, unit_net: unitNet, total_net: cents(unitNet * quantity) / 100 });
    expect(res.body.vat).toBe(Math.round(res.body.total_net * 100 * 0.19) / 100);
  });

  it('prices a club by the gross from-price per piece whatever the quantity, and a company by the net tier', async () => {
    const lines = [{ product: 'bio-polo-herren', quantity: 100 }];

    const club = await h.postQuote({ organization_type: 'verein', lines });
    const school = await h.postQuote({ organization_type: 'schule', lines: [{ product: 'bio-polo-herren', quantity: 1 }] });
    const restaurant = await h.postQuote({ organization_type: 'gastro', lines });

    expect(club.body).toMatchObject({ shop_type: 'b2c', total_gross: 2990, vat: 477.39, total_net: 2512.61 });
    expect(club.body.lines[0]).toMatchObject({ tier_from: null, unit_gross: 29.9, unit_net: 25.13, total_gross: 2990 });
    expect(school.body.lines[0]).toMatchObject({ tier_from: null, unit_gross: 29.9 });
    expect(restaurant.body).toMatchObject({ shop_type: 'b2b', total_net: 1975, vat: 375.25, total_gross: 2350.25 });
    expect(restaurant.body.lines[0]).toMatchObject({ tier_from: 100, unit_net: 19.75, unit_gross: 23.5 });
  });

  it('rounds to the cent once, on the total, and the lines add up to the totals', async () => {
    const lines = [
      { product: 'bio-t-shirt-unisex', quantity: 1 },
      { product: 'Bio T-Shirt Unisex', quantity: 1 },
      { product: 'baseball-cap-bio', quantity: 13 },
      { product: 'bio-hoodie-unisex', quantity: 7, decoration: 'stick' as const },
    ];

    for (const organization_type of ['unternehmen', 'verein'] as const) {
      const { body } = await h.postQuote({ organization_type, lines });

      const sum = (key: 'total_net' | 'total_gross') => body.lines.reduce((total: number, line: Record<string, number>) => total + cents(line[key]!), 0);
      expect(sum('total_net')).toBe(cents(body.total_net));
      expect(sum('total_gross')).toBe(cents(body.total_gross));
      expect(cents(body.total_net) + cents(body.vat)).toBe(cents(body.total_gross));
      for (const value of [body.total_net, body.vat, body.total_gross, ...body.lines.flatMap((l: Record<string, number>) => [l.total_net, l.total_gross])]) {
        expect(cents(value) / 100).toBe(value);
      }
    }
    const company = (await h.postQuote({ organization_type: 'unternehmen', lines: lines.slice(0, 2) })).body;
    // Two shirts at 16.72 net: rounded per line the VAT would be 2 × 3.18; on the total 33.44 it is 6.35.
    expect(company).toMatchObject({ total_net: 33.44, vat: 6.35, total_gross: 39.79 });
    expect(company.lines.map((l: Record<string, number>) => l.total_gross)).toEqual([19.9, 19.89]);
  });

  it('warns about a color the product does not list and about paused embroidery, as a shop request does', async () => {
    const res = await h.postQuote(buildQuote({ lines: [{ product: 'bio-polo-herren', quantity: 12, decoration: 'stick', colors: ['navy', 'Lila'] }] }));

    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([
      expect.stringMatching(/^lines\.0\.colors: 'Lila' is not listed for 'Bio Poloshirt Herren'/),
      'lines.0.decoration: embroidery (stick) is paused; the operator will suggest print (dtf) instead.',
    ]);
    const shopRequest = await h.post(buildShopRequest({ products: [{ product: 'bio-polo-herren', decoration: 'stick', colors: ['navy', 'Lila'] }] }), {
      principal: sandboxWriter(),
      sandbox: true,
    });
    expect(shopRequest.body.warnings).toEqual(res.body.warnings.map((w: string) => w.replace('lines.0', 'products.0')));
  });

  it('answers 422 with every unknown product on its field and stores nothing', async () => {
    const keysBefore = await h.redis.keys(`${h.prefix}quote:*`);

    const res = await h.postQuote(
      buildQuote({
        lines: [
          { product: 'bio-polo-herren', quantity: 1 },
          { product: 'golden-polo', quantity: 1 },
          { product: 'Diamond Cap', quantity: 2 },
        ],
      }),
    );

    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(res.body.error.fields).toEqual([
      { field: 'lines.1.product', message: "unknown product 'golden-polo'; use a handle or title listed by GET /v1/products" },
      { field: 'lines.2.product', message: "unknown product 'Diamond Cap'; use a handle or title listed by GET /v1/products" },
    ]);
    expect(await h.redis.keys(`${h.prefix}quote:*`)).toHaveLength(keysBefore.length);
  });

  it('names an unknown product in the same 422 as the problems of the schema', async () => {
    const res = await h.postQuote({ organization_type: 'firma', lines: [{ product: 'golden-polo', quantity: 0 }] });

    expect(res.status).toBe(422);
    expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['lines.0.product', 'lines.0.quantity', 'organization_type']);
  });

  it('refuses credentials without catalog:read, as the gateway does, and takes none at all', async () => {
    const writerOnly = buildPrincipal({ scopes: ['requests:write'] });

    expect((await h.postQuote(buildQuote(), { principal: writerOnly })).status).toBe(403);
    expect((await h.postQuote(buildQuote(), { principal: null })).status).toBe(201);
  });

  it('answers 404 quote_not_found for an unknown id and 400 for a malformed one', async () => {
    const unknown = await h.getQuote('quo_0000000000000000');
    const malformed = await h.getQuote('quo_XYZ');

    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('quote_not_found');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_request');
  });

  it('answers other methods with 405 and Allow', async () => {
    const put = await request(h.app).put('/v1/quotes').set(internalHeaders('requests')).send({});
    const del = await request(h.app).delete('/v1/quotes/quo_0000000000000000').set(internalHeaders('requests'));

    expect(put.status).toBe(405);
    expect(put.headers.allow).toContain('POST');
    expect(del.status).toBe(405);
    expect(del.headers.allow).toContain('GET');
  });
});

describe('a quote after the catalog changed its prices', () => {
  let h: Harness;
  let catalogService: RunningService;
  let products: Product[];
  beforeAll(async () => {
    catalogService = await startCatalog(
      loadConfig(CatalogEnv, { CATALOG_PORT: '0', CATALOG_ADMIN_PORT: '0', INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET, LOG_LEVEL: 'silent' }),
      { logger: testLogger('catalog') },
    );
    const client = createCatalogClient({ baseUrl: catalogService.url, sign: createInternalSigner(TEST_INTERNAL_SECRET) });
    products = await client.listAllProducts(buildContext());
    // A catalog whose copy is replaced on demand, as a reload of the source replaces it.
    const catalog: ProductCatalog = { index: async () => createProductIndex(products) };
    h = await startHarness('quotes-reload', { catalog });
  });
  afterAll(async () => {
    await h?.close();
    await catalogService?.close();
  });

  it('keeps the prices it was made with, while a new quote has the new ones', async () => {
    const made = await h.postQuote(buildQuote());
    products = products.map((p) =>
      p.handle === 'bio-polo-herren'
        ? { ...p, quantity_prices_dtf: { tiers: p.quantity_prices_dtf!.tiers.map((t) => ({ ...t, netto: t.netto + 1, brutto: t.brutto + 1.19 })) } }
        : p,
    );

    const read = await h.getQuote(made.body.quote_id);
    const fresh = await h.postQuote(buildQuote());

    expect(read.body).toEqual(made.body);
    expect(read.body.lines[0].unit_net).toBe(21.76);
    expect(fresh.body.lines[0].unit_net).toBe(22.76);
  });
});

describe('a shop request naming a quote', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('quotes-requests');
  });
  afterAll(async () => {
    await h?.close();
  });

  const companyRequest = (quote_id: string) =>
    buildShopRequest({
      organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max Muster', email: 'max@muster.example' },
      products: [{ product: 'bio-polo-herren', colors: ['Navy'] }],
      quote_id,
    });

  it('stores the quote with the live request, names it in the result and puts it into the intake job', async () => {
    const quote = (await h.postQuote(buildQuote())).body;
    const principal = liveWriter();

    const res = await h.post(companyRequest(quote.quote_id), { principal });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ quote_id: quote.quote_id, warnings: [] });
    expect((await h.store.get(res.body.id))?.quote).toEqual(quote);
    const job = IntakeJob.parse((await h.intake.queue.getJob(res.body.id))?.data);
    expect(job.quote).toEqual(quote);
    // The previous worker parses the body strictly: the quote travels beside it.
    expect(job.body).not.toHaveProperty('quote_id');
    expect((await h.get(res.body.id, { principal })).body.quote_id).toBe(quote.quote_id);
  });

  it('answers 422 on quote_id for an unknown quote, and gives the day\'s unit back', async () => {
    const principal = liveWriter();

    const res = await h.post(companyRequest('quo_ffffffffffffffff'), { principal });

    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual([
      { field: 'quote_id', message: "unknown or expired quote 'quo_ffffffffffffffff'; make a new one with POST /v1/quotes" },
    ]);
    expect(await h.quotas.live.used(principal.id)).toBe(0);
  });

  it('names an unknown quote in the same 422 as the problems of the schema', async () => {
    const res = await h.post({ ...companyRequest('quo_ffffffffffffffff'), shop_name: '' }, { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(422);
    expect(res.body.error.fields.map((f: { field: string }) => f.field).sort()).toEqual(['quote_id', 'shop_name']);
  });

  it('answers 422 on quote_id for a malformed id', async () => {
    const res = await h.post(companyRequest('quote-1'), { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(422);
    expect(res.body.error.fields).toEqual([{ field: 'quote_id', message: 'must match ^quo_[0-9a-f]{16}$' }]);
  });

  it('warns when the quote was made for the other shop type', async () => {
    const quote = (await h.postQuote(buildQuote({ organization_type: 'verein' }))).body;

    const res = await h.post(companyRequest(quote.quote_id), { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(201);
    expect(res.body.warnings).toEqual([expect.stringMatching(/^quote_id: the quote prices a b2c shop/)]);
  });
});
