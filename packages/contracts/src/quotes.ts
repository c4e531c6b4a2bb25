// Quotes: exact prices for lines of product × quantity × decoration, so an
// agent never picks a volume tier or adds VAT itself. One schema for the body
// serves the REST validation, the OpenAPI document, the documents and the MCP
// tool `get_quote`; the answer promises the shape below.
import { CURRENCY, DateTime, LIMITS, QuoteId } from './common.js';
import { OrganizationType, RequestedProduct, ShopType } from './shop-requests.js';
import { z } from './zod.js';

export const QuoteIdParams = z.object({
  id: QuoteId.openapi({ param: { name: 'id', in: 'path' }, example: 'quo_5e0c2a9b7d1f4e38' }),
});

const requested = RequestedProduct.shape;

export const QuoteLineRequest = z
  .strictObject({
    product: requested.product.describe('Product handle (preferred) or exact title, as listed by GET /v1/products; never a guess.'),
    quantity: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.quoteQuantityMax)
      .describe(`Pieces of this product, 1 to ${LIMITS.quoteQuantityMax}; picks the volume tier of a company shop.`),
    decoration: requested.decoration.describe('"dtf" (print, the default, always available) or "stick" (embroidery, paused: priced as print, with a warning).'),
    colors: requested.colors.describe('Color names as the product lists them; another name yields a warning.'),
  })
  .openapi('QuoteLineRequest');

export const QuoteBody = z
  .strictObject({
    organization_type: OrganizationType.describe(
      'Decides the price basis. "schule" (school), "verein" (club): consumer shop, members pay the gross from-price per piece whatever the quantity. ' +
        '"unternehmen" (company), "handwerk" (craft business), "gastro" (restaurant): company shop, the net price of the volume tier the quantity reaches, plus 19 % VAT.',
    ),
    lines: z
      .array(QuoteLineRequest)
      .min(1)
      .max(LIMITS.quoteLinesMax)
      .describe(`1 to ${LIMITS.quoteLinesMax} lines of product, quantity, decoration and colors; a product may appear on several lines.`),
  })
  .openapi('QuoteRequest');
export type QuoteBody = z.infer<typeof QuoteBody>;
export type QuoteInput = z.input<typeof QuoteBody>;

const euros = (description: string) => z.number().describe(`${description} In EUR, rounded to the cent.`);

export const QuoteLine = z
  .object({
    product: z.string().describe('Product title'),
    handle: z.string(),
    quantity: z.number().int(),
    decoration: z.enum(['dtf', 'stick']),
    tier_from: z
      .number()
      .int()
      .nullable()
      .describe('The `ab` of the volume tier applied (b2b); null when no tier applies: b2c, or a product without tiers.'),
    unit_net: euros('Net price per piece: b2b the tier\'s `netto`; b2c `unit_gross` without VAT.'),
    unit_gross: euros('Gross price per piece incl. 19 % VAT: b2c the product\'s `printed_price_from`; b2b the tier\'s `brutto`.'),
    total_net: euros('b2b: `unit_net` × `quantity`; b2c: `total_gross` without its share of the VAT.'),
    total_gross: euros('b2c: `unit_gross` × `quantity`; b2b: `total_net` plus its share of the VAT.'),
  })
  .openapi('QuoteLine');
export type QuoteLine = z.infer<typeof QuoteLine>;

export const Quote = z
  .object({
    quote_id: QuoteId,
    organization_type: OrganizationType,
    shop_type: ShopType.describe('`b2c` (gross prices per piece) for `schule` and `verein`, `b2b` (net prices with volume tiers) for the others.'),
    currency: z.literal(CURRENCY),
    lines: z.array(QuoteLine),
    total_net: euros('The sum of the lines\' `total_net`.'),
    vat: euros(
      'VAT at 19 %: b2b 19 % of `total_net`; b2c, whose gross prices are what members pay, the VAT contained in `total_gross` (× 19/119). Each line\'s gross minus net is its share of it.',
    ),
    total_gross: euros('`total_net` + `vat`, which is also the sum of the lines\' `total_gross`.'),
    created_at: DateTime,
    expires_at: DateTime.describe(`Until then (${LIMITS.quoteLifetimeDays} days) the quote can be read back and named by a shop request; its prices are the catalog's when it was made.`),
    warnings: z.array(z.string()),
  })
  .openapi('Quote');
export type Quote = z.infer<typeof Quote>;
