import { DateTime, LIMITS, QuoteId, SHOP_REQUEST_ID_PATTERN } from './common.js';
import { z } from './zod.js';

export const ORGANIZATION_TYPES = ['schule', 'verein', 'unternehmen', 'handwerk', 'gastro'] as const;
export const OrganizationType = z.enum(ORGANIZATION_TYPES);
export type OrganizationType = z.infer<typeof OrganizationType>;

export const ShopType = z.enum(['b2c', 'b2b']);
export type ShopType = z.infer<typeof ShopType>;

/** Spec rule 3: consumer shops for schools and clubs, company shops for the rest. */
export function shopTypeOf(type: OrganizationType): ShopType {
  return type === 'schule' || type === 'verein' ? 'b2c' : 'b2b';
}

const text = (max: number) => z.string().trim().min(1, 'must not be empty').max(max);

const HttpUrl = z.url({ protocol: /^https?$/, error: 'must be a public http(s) URL' });

export const DEFAULT_DESIGN_POSITION = 'Brust Mitte';

export const Organization = z
  .strictObject({
    name: text(200),
    type: OrganizationType,
    contact_name: text(200),
    email: z.email('must be a valid e-mail address').max(254),
    phone: z.string().trim().max(50).optional(),
  })
  .openapi('Organization');

export const Design = z
  .strictObject({
    position: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .optional()
      .openapi({ description: `Placement label; default "${DEFAULT_DESIGN_POSITION}" (front center). Others: "Brust links", "Rücken".` }),
    width_cm: z.number().min(LIMITS.designWidthMinCm).max(LIMITS.designWidthMaxCm).optional(),
    logo_url: HttpUrl.max(2000)
      .optional()
      .openapi({
        description: `Public http(s) URL of the logo (PNG, SVG or JPG, at most ${LIMITS.logoMaxBytes / (1024 * 1024)} MB); downloaded and attached to the request. All designs of a request name at most ${LIMITS.logoUrlsPerShopRequest} distinct URLs (422 validation_failed on products past that).`,
      }),
    comment: z.string().max(LIMITS.commentMax).optional(),
  })
  .openapi('Design');
export type Design = z.infer<typeof Design>;

export const RequestedProduct = z
  .strictObject({
    product: text(200).openapi({ description: 'Product handle (preferred) or title as listed by listProducts' }),
    colors: z.array(z.string().trim().min(1).max(60)).max(20).optional(),
    decoration: z.enum(['dtf', 'stick']).default('dtf'),
    designs: z.array(Design).max(10).optional(),
    comment: z.string().max(LIMITS.commentMax).optional(),
  })
  .openapi('RequestedProduct');
export type RequestedProduct = z.infer<typeof RequestedProduct>;

export const ShopRequestBody = z
  .strictObject({
    organization: Organization,
    shop_name: text(LIMITS.shopNameMax),
    products: z.array(RequestedProduct).max(LIMITS.productsPerShopRequest).optional(),
    design_service: z.boolean().default(false),
    group_order_until: z.iso.date('must be a date YYYY-MM-DD').optional(),
    password_protection: z.boolean().default(false),
    private_shop: z.boolean().default(false),
    customer_account: z.boolean().default(false),
    occasion: z.string().max(LIMITS.occasionMax).optional(),
    team_size: z.number().int().min(1).max(1_000_000).optional(),
    notes: z.string().max(LIMITS.notesMax).optional(),
    quote_id: QuoteId.optional().describe(
      'The quote_id of a quote (POST /v1/quotes) this request is based on; its lines and totals reach the operator with the request. An unknown or expired quote is a 422 on this field.',
    ),
  })
  .superRefine((body, ctx) => {
    // Rule 1: without products the operator has nothing to build unless asked to design.
    if ((!body.products || body.products.length === 0) && body.design_service !== true) {
      ctx.addIssue({
        code: 'custom',
        path: ['products'],
        message: 'at least one product is required unless design_service is true',
      });
    }
    // Each distinct logo is downloaded and attached to the operator e-mail: bounded per request.
    const logoUrls = new Set(body.products?.flatMap((p) => p.designs?.flatMap((d) => (d.logo_url ? [d.logo_url] : [])) ?? []));
    if (logoUrls.size > LIMITS.logoUrlsPerShopRequest) {
      ctx.addIssue({
        code: 'custom',
        path: ['products'],
        message: `at most ${LIMITS.logoUrlsPerShopRequest} distinct logo_url values per request (got ${logoUrls.size})`,
      });
    }
  })
  .openapi('ShopRequest');
export type ShopRequestBody = z.infer<typeof ShopRequestBody>;
export type ShopRequestInput = z.input<typeof ShopRequestBody>;

export const ShopRequestId = z.string().regex(SHOP_REQUEST_ID_PATTERN, 'must match ^req_[0-9a-f]{16}$');
export const ShopRequestIdParams = z.object({
  id: ShopRequestId.openapi({ param: { name: 'id', in: 'path' }, example: 'req_0123456789abcdef' }),
});

export const ShopRequestResultProduct = z.object({
  product: z.string(),
  handle: z.string(),
  colors: z.array(z.string()),
  decoration: z.string(),
  designs: z.number().int(),
  estimated_price_from: z.number().nullable(),
});

export const ShopRequestResult = z
  .object({
    id: ShopRequestId,
    status: z.literal('received'),
    sandbox: z.boolean(),
    created_at: DateTime,
    organization: z.string(),
    shop_name: z.string(),
    shop_type: ShopType,
    products: z.array(ShopRequestResultProduct),
    next_steps: z.string(),
    warnings: z.array(z.string()),
    upstream: z.record(z.string(), z.unknown()).nullable(),
    /** Only on a request that named a quote. */
    quote_id: QuoteId.optional(),
  })
  .openapi('ShopRequestResult');
export type ShopRequestResult = z.infer<typeof ShopRequestResult>;
