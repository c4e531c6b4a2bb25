// Quotes through the gateway, as the root README's "Try it" makes them: open
// to everyone (the anonymous per-minute limit, the higher one with
// credentials), read back by id, named by a sandbox and a live shop request;
// the live one reaches the operator with the quote's lines and totals.
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import { LIMITS } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

const OPERATOR = 'operator@merch.test';

let system: System;
let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await startSmtpSink();
  system = await startSystem({ name: 'quotes', worker: { smtpUrl: smtp.url, operatorEmail: OPERATOR } });
});

afterAll(async () => {
  await system?.close();
  await smtp?.close();
});

interface Answer {
  quote_id: string;
  id: string;
  lines: unknown[];
  error: { code: string; fields: unknown };
}

async function call(method: string, path: string, body?: unknown, apiKey?: string) {
  const res = await fetch(`${system.baseUrl}${path}`, {
    method,
    headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  // The answers are checked field by field below; the type only has to let them be read.
  return { status: res.status, headers: res.headers, body: (await res.json()) as Answer };
}

async function waitUntil(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// The bodies of the README's "Try it".
const clubQuote = { organization_type: 'verein', lines: [{ product: 'bio-t-shirt-unisex', quantity: 40, colors: ['Schwarz'] }] };
const clubRequest = (quote_id: string) => ({
  organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Muster', email: 'erika@example.org' },
  shop_name: 'TSV Fanshop',
  products: [{ product: 'bio-t-shirt-unisex', colors: ['Schwarz'] }],
  quote_id,
});

describe('quotes through the gateway', () => {
  it('runs the README\'s steps: a quote without credentials, read back, named by a sandbox shop request', async () => {
    const key = await createKey(system.baseUrl);

    const quote = await call('POST', '/v1/quotes', clubQuote);
    const read = await call('GET', `/v1/quotes/${quote.body.quote_id}`);
    const request = await call('POST', '/v1/shop-requests', clubRequest(quote.body.quote_id), key.api_key);

    expect(quote.status).toBe(201);
    expect(quote.headers.get('location')).toBe(`${system.baseUrl}/v1/quotes/${quote.body.quote_id}`);
    expect(quote.headers.get('ratelimit-policy')).toContain(`q=${LIMITS.ratePerMinuteAnonymous}`);
    expect(quote.body).toMatchObject({ shop_type: 'b2c', currency: 'EUR', total_gross: 796, vat: 127.09, total_net: 668.91, warnings: [] });
    expect(quote.body.lines).toEqual([
      {
        product: 'Bio T-Shirt Unisex',
        handle: 'bio-t-shirt-unisex',
        quantity: 40,
        decoration: 'dtf',
        tier_from: null,
        unit_net: 16.72,
        unit_gross: 19.9,
        total_net: 668.91,
        total_gross: 796,
      },
    ]);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(quote.body);
    expect(request.status).toBe(201);
    expect(request.body).toMatchObject({ sandbox: true, quote_id: quote.body.quote_id });
  });

  it('counts a caller with credentials against the higher limit, and refuses credentials without catalog:read', async () => {
    const reader = await createKey(system.baseUrl, { scopes: ['catalog:read'] });
    const writer = await createKey(system.baseUrl, { scopes: ['requests:write'] });

    const withKey = await call('POST', '/v1/quotes', clubQuote, reader.api_key);
    const withoutScope = await call('POST', '/v1/quotes', clubQuote, writer.api_key);

    expect(withKey.status).toBe(201);
    expect(withKey.headers.get('ratelimit-policy')).toContain(`q=${LIMITS.ratePerMinuteWithCredentials}`);
    expect(withoutScope.status).toBe(403);
    expect(withoutScope.body.error.code).toBe('insufficient_scope');
  });

  it('serves quotes on the sandbox path too, with sandbox links', async () => {
    const quote = await call('POST', '/sandbox/v1/quotes', clubQuote);

    expect(quote.status).toBe(201);
    expect(quote.headers.get('location')).toBe(`${system.baseUrl}/sandbox/v1/quotes/${quote.body.quote_id}`);
    expect((await call('GET', `/sandbox/v1/quotes/${quote.body.quote_id}`)).body).toEqual(quote.body);
  });

  it('answers an unknown product with 422 on its field and an unknown quote with 404', async () => {
    const invalid = await call('POST', '/v1/quotes', { organization_type: 'unternehmen', lines: [{ product: 'golden-polo', quantity: 40 }] });
    const unknown = await call('GET', '/v1/quotes/quo_0000000000000000');

    expect(invalid.status).toBe(422);
    expect(invalid.body.error.fields).toEqual([{ field: 'lines.0.product', message: expect.stringContaining("unknown product 'golden-polo'") }]);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'quote_not_found', docs: `${system.baseUrl}/developers#quote_not_found` });
  });

  it('puts the quote a live request named into the operator e-mail', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });
    const quote = await call('POST', '/v1/quotes', {
      organization_type: 'unternehmen',
      lines: [
        { product: 'bio-polo-herren', quantity: 40, colors: ['Navy'] },
        { product: 'baseball-cap-bio', quantity: 10, decoration: 'stick' },
      ],
    });

    const request = await call(
      'POST',
      '/v1/shop-requests',
      {
        organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max Muster', email: 'max@muster.example' },
        shop_name: 'Muster Teamwear',
        products: [{ product: 'bio-polo-herren', colors: ['Navy'] }],
        quote_id: quote.body.quote_id,
      },
      key.api_key,
    );
    expect(request.status).toBe(201);
    const operatorMail = () => smtp.to(OPERATOR).find((m) => m.parsed.messageId === `<${request.body.id}.operator@merch.test>`);
    await waitUntil(() => operatorMail() !== undefined, 'the operator e-mail');

    expect(quote.body).toMatchObject({ total_net: 1012.4, vat: 192.36, total_gross: 1204.76 });
    const text = operatorMail()!.parsed.text!;
    expect(text).toContain(`Angebot ${quote.body.quote_id}`);
    expect(text).toContain('Position 1: 40 × Bio Poloshirt Herren (bio-polo-herren), DTF-Druck');
    expect(text).toMatch(/Summe netto: 1\.012,40\s€\nMwSt\. 19 %: 192,36\s€\nSumme brutto: 1\.204,76\s€/);
  });
});
