// Which quotes are the same quote. Two requests that price the same products
// in the same quantities at the same prices for the same kind of shop answer
// the same stored quote, so asking again stores nothing new.
//
// The digest is taken over what the quote says rather than over the body as
// sent: the lines as priced (each product by its handle, however the caller
// named it; quantity, decoration, tier, prices), the totals and the warnings.
// That is the request in a canonical form plus the prices of the products it
// names, so a change of price in the catalog makes a new quote, while a title
// instead of a handle, or a listed color in other letter case, does not.
import { createHash } from 'node:crypto';
import type { Quote } from '@msa/contracts';

/** The parts of a quote that are not its identity or its dates. */
export type QuoteContent = Omit<Quote, 'quote_id' | 'created_at' | 'expires_at'>;

/** Bump when the content or its encoding changes, so old digests stop matching. */
const DIGEST_VERSION = 1;

export function quoteDigest(quote: QuoteContent, sandbox: boolean): string {
  const canonical = {
    v: DIGEST_VERSION,
    sandbox,
    organization_type: quote.organization_type,
    shop_type: quote.shop_type,
    currency: quote.currency,
    lines: quote.lines.map((l) => [l.handle, l.product, l.quantity, l.decoration, l.tier_from, l.unit_net, l.unit_gross, l.total_net, l.total_gross]),
    totals: [quote.total_net, quote.vat, quote.total_gross],
    warnings: quote.warnings,
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}
