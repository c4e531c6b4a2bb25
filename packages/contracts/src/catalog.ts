import { CURRENCY, DateTime, Decoration, HANDLE_PATTERN, LIMITS } from './common.js';
import { z } from './zod.js';

export const QuantityTier = z
  .looseObject({
    ab: z.number().int().min(1).describe('From this quantity'),
    brutto: z.number().describe('Gross price per piece incl. 19 % VAT'),
    netto: z.number().describe('Net price per piece'),
  })
  .openapi('QuantityTier');
export type QuantityTier = z.infer<typeof QuantityTier>;

export const QuantityPrices = z.looseObject({ tiers: z.array(QuantityTier) }).openapi('QuantityPrices');

export const Handle = z.string().regex(HANDLE_PATTERN, 'must match ^[a-z0-9-]+$').max(120);

export const Product = z
  .object({
    handle: Handle,
    title: z.string(),
    url: z.url(),
    currency: z.literal(CURRENCY),
    type: z.string().optional(),
    available: z.boolean().optional(),
    tags: z.array(z.string()).optional(),
    blank_price_from: z.number().nullable().optional(),
    printed_price_from: z.number().nullable().optional(),
    quantity_prices_dtf: QuantityPrices.nullable().optional(),
    decoration: z.array(Decoration).optional(),
    colors: z.array(z.string()).optional(),
    sizes: z.array(z.string()).optional(),
    image: z.url().nullable().optional(),
    description: z.string().optional(),
  })
  .openapi('Product');
export type Product = z.infer<typeof Product>;

export const ProductList = z
  .object({
    generated_at: DateTime.optional(),
    total: z.number().int(),
    limit: z.number().int().optional(),
    offset: z.number().int().optional(),
    products: z.array(Product),
  })
  .openapi('ProductList');
export type ProductList = z.infer<typeof ProductList>;

// The order is part of the contract: agents take the first hit.
const Q_DESCRIPTION =
  'Free text over title, type, tags, description; every term must match. Results are ranked: a term found in the title first, ' +
  'then in the type, the tags, the description; within a field a whole word before a word start before a match inside a word. ' +
  'Equal matches keep catalog order; limit and offset page the ranked list. Case, accents and ß are ignored (schürze = schurze = schuerze).';

export const ProductListQuery = z.object({
  q: z.string().max(LIMITS.queryQMax).optional().openapi({ description: Q_DESCRIPTION }),
  type: z.string().max(LIMITS.queryTypeMax).optional().openapi({ description: 'Product type or tag' }),
  decoration: z.enum(['dtf', 'stick']).optional().openapi({ description: 'Only products supporting this technique' }),
  limit: z.coerce.number().int().min(1).max(LIMITS.listProductsLimitMax).default(LIMITS.listProductsLimitDefault),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ProductListQuery = z.infer<typeof ProductListQuery>;

export const ProductHandleParams = z.object({
  handle: Handle.openapi({ param: { name: 'handle', in: 'path' }, example: 'bio-t-shirt-unisex' }),
});

export const PricingProduct = z.object({
  handle: z.string(),
  title: z.string(),
  url: z.string(),
  currency: z.string(),
  printed_price_from: z.number().nullable(),
  blank_price_from: z.number().nullable(),
  quantity_prices_dtf: QuantityPrices.nullable(),
  decoration: z.array(z.string()),
});

export const Pricing = z
  .object({
    currency: z.string(),
    shop_setup: z.object({ price: z.number(), currency: z.string(), description: z.string() }),
    minimum_order_quantity: z.number().int(),
    price_basis: z.string(),
    delivery_area: z.array(z.string()),
    decoration: z.record(z.string(), z.string()),
    products: z.array(PricingProduct),
  })
  .openapi('Pricing');
export type Pricing = z.infer<typeof Pricing>;
