import { QuoteBody, type Product, type Quote, type QuoteInput } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { buildProduct } from '../../test/build-product.js';
import { buildQuote } from './create-quote.js';
import { createProductIndex } from './product-index.js';
import { quoteDigest } from './quote-digest.js';

const tiers = [
  { ab: 1, brutto: 19.9, netto: 16.72 },
  { ab: 10, brutto: 17.9, netto: 15.04 },
];
const shirt = buildProduct({ quantity_prices_dtf: { tiers } });

let ids = 0;
function priced(input: QuoteInput, products: Product[] = [shirt], createdAt = new Date('2030-05-01T10:00:00Z')): Quote {
  ids += 1;
  const outcome = buildQuote(QuoteBody.parse(input), createProductIndex(products), {
    id: `quo_${ids.toString(16).padStart(16, '0')}`,
    createdAt,
    lifetimeSeconds: 7 * 86_400,
  });
  if (!outcome.ok) throw new Error('not priced');
  return outcome.quote;
}

const company = (lines: QuoteInput['lines']): QuoteInput => ({ organization_type: 'unternehmen', lines });
const digestOf = (input: QuoteInput, sandbox = false, products?: Product[]) => quoteDigest(priced(input, products), sandbox);

describe('quoteDigest', () => {
  it('is the same for the same request made again later, whatever its id and dates', () => {
    const input = company([{ product: 'bio-t-shirt-unisex', quantity: 12 }]);

    const first = quoteDigest(priced(input), false);
    const later = quoteDigest(priced(input, [shirt], new Date('2030-05-03T08:00:00Z')), false);

    expect(later).toBe(first);
  });

  it('names a product the same by its title as by its handle, and a listed color in any letter case', () => {
    const byHandle = digestOf(company([{ product: 'bio-t-shirt-unisex', quantity: 12, colors: ['Navy'] }]));

    expect(digestOf(company([{ product: '  bio t-shirt UNISEX ', quantity: 12, colors: ['navy'] }]))).toBe(byHandle);
  });

  it('differs for another quantity, decoration, organization type, line order or unlisted color', () => {
    const base = digestOf(company([{ product: 'bio-t-shirt-unisex', quantity: 12 }]));
    const others = [
      digestOf(company([{ product: 'bio-t-shirt-unisex', quantity: 13 }])),
      digestOf(company([{ product: 'bio-t-shirt-unisex', quantity: 12, decoration: 'stick' }])),
      digestOf({ organization_type: 'verein', lines: [{ product: 'bio-t-shirt-unisex', quantity: 12 }] }),
      digestOf(company([{ product: 'bio-t-shirt-unisex', quantity: 12, colors: ['Lila'] }])),
      digestOf(company([{ product: 'bio-t-shirt-unisex', quantity: 12 }, { product: 'bio-t-shirt-unisex', quantity: 1 }])),
      digestOf(company([{ product: 'bio-t-shirt-unisex', quantity: 1 }, { product: 'bio-t-shirt-unisex', quantity: 12 }])),
    ];

    expect(new Set([base, ...others]).size).toBe(1 + others.length);
  });

  it('differs once the catalog changed the price of a product the quote names', () => {
    const input = company([{ product: 'bio-t-shirt-unisex', quantity: 12 }]);
    const dearer = buildProduct({ quantity_prices_dtf: { tiers: tiers.map((t) => ({ ...t, netto: t.netto + 1, brutto: t.brutto + 1.19 })) } });

    expect(digestOf(input, false, [dearer])).not.toBe(digestOf(input, false, [shirt]));
  });

  it('keeps the sandbox and live quotes apart', () => {
    const input = company([{ product: 'bio-t-shirt-unisex', quantity: 12 }]);

    expect(digestOf(input, true)).not.toBe(digestOf(input, false));
  });
});
