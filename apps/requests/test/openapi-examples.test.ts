// The OpenAPI document shows worked examples of POST /v1/shop-requests and
// of quotes. This file posts each example body to the real service and
// compares the answer with the example beside it, so the document cannot
// promise texts, fields or prices the service no longer sends.
import { EXAMPLE_REQUESTS, buildOpenApiExamples } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, buildPrincipal, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

// The moment the examples were written at, so their dates and reset times hold.
const NOW = new Date('2026-01-15T09:31:12.000Z');
const examples = buildOpenApiExamples(TEST_BASE_URL).createShopRequest!;
const exampleOf = (status: number, name: string) => examples.responses![status]![name]!.value as Record<string, unknown>;

/** Field names and value types, recursively: what a client written against the example relies on. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shapeOf(v)]));
  }
  return value === null ? null : typeof value;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness('openapi-examples', { now: () => NOW });
});
afterAll(async () => {
  await h?.close();
});

describe('the OpenAPI examples of POST /v1/shop-requests', () => {
  it.each(Object.entries(examples.request!['application/json']!))('answers the %s example body as the 201 example shows', async (_name, example) => {
    const res = await h.post(example.value, { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(201);
    const shown = exampleOf(201, 'sandbox');
    expect(shapeOf(res.body)).toEqual(shapeOf({ ...shown, ...(Array.isArray(res.body.products) && res.body.products.length === 0 ? { products: [] } : {}) }));
    expect(res.body).toMatchObject({ status: shown.status, sandbox: shown.sandbox, created_at: shown.created_at });
    expect(res.body.next_steps).toBe(String(shown.next_steps).replaceAll(String(shown.id), res.body.id));
  });

  it('answers the club example exactly as the 201 example shows, but for its id', async () => {
    const res = await h.post(EXAMPLE_REQUESTS.clubShopRequest, { principal: sandboxWriter(), sandbox: true });

    expect({ ...res.body, id: 'req_3f9a1c2b7d4e6f80', next_steps: undefined }).toEqual({ ...exampleOf(201, 'sandbox'), next_steps: undefined });
  });

  it('answers an invalid body with the problems and messages of the 422 example', async () => {
    const res = await h.post(EXAMPLE_REQUESTS.invalidShopRequest, { principal: sandboxWriter(), sandbox: true });

    expect(res.status).toBe(422);
    expect(res.body).toEqual(exampleOf(422, 'invalid'));
  });

  it('answers a live request past the daily limit with the message and hint of the 429 example', async () => {
    const principal = liveWriter();
    for (let i = 0; i < 5; i++) await h.quotas.live.reserve(principal.id, NOW);

    const res = await h.post(EXAMPLE_REQUESTS.clubShopRequest, { principal });

    expect(res.status).toBe(429);
    expect(res.body).toEqual(exampleOf(429, 'daily_limit'));
  });
});

describe('the OpenAPI examples of quotes', () => {
  const all = buildOpenApiExamples(TEST_BASE_URL);
  const created = all.createQuote!;
  const shown = created.responses![201]!.company!.value as Record<string, unknown>;

  it('prices the company example exactly as the 201 example shows, but for its id, and reads it back as getQuote shows', async () => {
    const res = await h.postQuote(EXAMPLE_REQUESTS.companyQuote, { principal: buildPrincipal() });

    expect(res.status).toBe(201);
    expect({ ...res.body, quote_id: shown.quote_id }).toEqual(shown);
    const read = await h.getQuote(res.body.quote_id);
    expect({ ...read.body, quote_id: shown.quote_id }).toEqual(all.getQuote!.responses![200]!.stored!.value);
  });

  it.each(Object.entries(created.request!['application/json']!))('answers the %s example body in the shape of the 201 example', async (_name, example) => {
    const res = await h.postQuote(example.value);

    // The club's quote has warnings (embroidery) and a null tier_from (b2c), where the company's has none and a number.
    const comparable = (quote: Record<string, unknown>) => ({
      ...quote,
      warnings: [],
      lines: (quote.lines as object[]).slice(0, 1).map((line) => ({ ...line, tier_from: 0 })),
    });
    expect(res.status).toBe(201);
    expect(shapeOf(comparable(res.body))).toEqual(shapeOf(comparable(shown)));
  });

  it('answers an unknown product with the problem of the 422 example', async () => {
    const res = await h.postQuote({ organization_type: 'unternehmen', lines: [{ product: 'golden-polo', quantity: 40 }] });

    expect(res.status).toBe(422);
    expect(res.body).toEqual(created.responses![422]!.unknown_product!.value);
  });

  it('answers an unknown quote id as the 404 example shows', async () => {
    const res = await h.getQuote('quo_5e0c2a9b7d1f4e38');

    expect(res.status).toBe(404);
    expect(res.body).toEqual(all.getQuote!.responses![404]!.expired!.value);
  });
});
