import { describe, expect, it } from 'vitest';
import { LIMITS } from './common.js';
import { IntakeJob } from './intake.js';
import { Quote, QuoteBody, QuoteIdParams, type QuoteInput } from './quotes.js';
import { ShopRequestBody } from './shop-requests.js';

type LineInput = QuoteInput['lines'][number];

function buildLine(overrides: Partial<LineInput> = {}): LineInput {
  return { product: 'bio-polo-herren', quantity: 40, ...overrides };
}

function buildQuoteBody(overrides: Partial<QuoteInput> = {}): QuoteInput {
  return { organization_type: 'unternehmen', lines: [buildLine()], ...overrides };
}

function issuePaths(value: unknown): string[] {
  const parsed = QuoteBody.safeParse(value);
  if (parsed.success) return [];
  return parsed.error.issues.map((issue) => issue.path.map(String).join('.'));
}

const storedQuote = {
  quote_id: 'quo_0123456789abcdef',
  organization_type: 'unternehmen',
  shop_type: 'b2b',
  currency: 'EUR',
  lines: [
    {
      product: 'Bio Poloshirt Herren',
      handle: 'bio-polo-herren',
      quantity: 40,
      decoration: 'dtf',
      tier_from: 25,
      unit_net: 21.76,
      unit_gross: 25.9,
      total_net: 870.4,
      total_gross: 1035.78,
    },
  ],
  total_net: 870.4,
  vat: 165.38,
  total_gross: 1035.78,
  created_at: '2030-01-15T09:00:00.000Z',
  expires_at: '2030-02-14T09:00:00.000Z',
  warnings: [],
};

describe('QuoteBody', () => {
  it('accepts a minimal quote and prints by default', () => {
    const parsed = QuoteBody.parse(buildQuoteBody());

    expect(parsed.lines[0]).toEqual({ product: 'bio-polo-herren', quantity: 40, decoration: 'dtf' });
  });

  it(`accepts 1 and ${LIMITS.quoteLinesMax} lines and refuses none or ${LIMITS.quoteLinesMax + 1} on lines`, () => {
    const lines = (n: number) => Array.from({ length: n }, () => buildLine());

    expect(issuePaths(buildQuoteBody({ lines: lines(1) }))).toEqual([]);
    expect(issuePaths(buildQuoteBody({ lines: lines(LIMITS.quoteLinesMax) }))).toEqual([]);
    expect(issuePaths(buildQuoteBody({ lines: [] }))).toEqual(['lines']);
    expect(issuePaths(buildQuoteBody({ lines: lines(LIMITS.quoteLinesMax + 1) }))).toEqual(['lines']);
  });

  it(`accepts a quantity of 1 and ${LIMITS.quoteQuantityMax}, and refuses 0, ${LIMITS.quoteQuantityMax + 1} and fractions on its field`, () => {
    expect(issuePaths(buildQuoteBody({ lines: [buildLine({ quantity: 1 })] }))).toEqual([]);
    expect(issuePaths(buildQuoteBody({ lines: [buildLine({ quantity: LIMITS.quoteQuantityMax })] }))).toEqual([]);
    for (const quantity of [0, LIMITS.quoteQuantityMax + 1, 2.5]) {
      expect(issuePaths(buildQuoteBody({ lines: [buildLine(), buildLine({ quantity })] }))).toEqual(['lines.1.quantity']);
    }
  });

  it('needs product and quantity on every line', () => {
    expect(issuePaths({ organization_type: 'verein', lines: [{ decoration: 'dtf' }] }).sort()).toEqual(['lines.0.product', 'lines.0.quantity']);
  });

  it('refuses an unknown organization type, decoration or field with its path', () => {
    expect(issuePaths(buildQuoteBody({ organization_type: 'handwerker' as never }))).toEqual(['organization_type']);
    expect(issuePaths(buildQuoteBody({ lines: [buildLine({ decoration: 'dtg' as never })] }))).toEqual(['lines.0.decoration']);
    expect(issuePaths({ ...buildQuoteBody(), team_size: 40 })).toEqual(['']);
    expect(issuePaths(buildQuoteBody({ lines: [{ ...buildLine(), size: 'L' } as LineInput] }))).toEqual(['lines.0']);
  });
});

describe('QuoteIdParams', () => {
  it('accepts quo_ and 16 lowercase hex digits only', () => {
    expect(QuoteIdParams.safeParse({ id: 'quo_0123456789abcdef' }).success).toBe(true);
    for (const id of ['quo_0123456789ABCDEF', 'quo_0123456789abcde', 'req_0123456789abcdef', 'quo_0123456789abcdef0']) {
      expect(QuoteIdParams.safeParse({ id }).success).toBe(false);
    }
  });
});

describe('Quote', () => {
  it('describes a stored quote', () => {
    expect(Quote.parse(storedQuote)).toEqual(storedQuote);
  });
});

describe('a shop request naming a quote', () => {
  const request = {
    organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max Muster', email: 'max@example.org' },
    shop_name: 'Muster Teamwear',
    products: [{ product: 'bio-polo-herren' }],
  };

  it('takes quote_id as an optional field', () => {
    expect(ShopRequestBody.parse(request).quote_id).toBeUndefined();
    expect(ShopRequestBody.parse({ ...request, quote_id: 'quo_0123456789abcdef' }).quote_id).toBe('quo_0123456789abcdef');
  });

  it('refuses a malformed quote_id on its field', () => {
    const parsed = ShopRequestBody.safeParse({ ...request, quote_id: 'quo_123' });

    expect(parsed.success ? [] : parsed.error.issues.map((i) => i.path.join('.'))).toEqual(['quote_id']);
  });

  it('carries the quote in an intake job, and a job without one still parses', () => {
    const job = {
      request_id: 'req_0123456789abcdef',
      body: request,
      result: {
        id: 'req_0123456789abcdef',
        status: 'received',
        sandbox: false,
        created_at: '2030-01-15T09:30:00.000Z',
        organization: 'Muster GmbH',
        shop_name: 'Muster Teamwear',
        shop_type: 'b2b',
        products: [],
        next_steps: '',
        warnings: [],
        upstream: null,
      },
      owner_id: 'msa_client_0123456789abcdef',
    };

    expect(IntakeJob.parse({ ...job, quote: storedQuote }).quote).toEqual(storedQuote);
    expect(IntakeJob.parse(job).quote).toBeUndefined();
  });
});
