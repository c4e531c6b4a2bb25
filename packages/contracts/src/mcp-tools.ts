// The tools of the MCP endpoint (spec §4 "MCP endpoint") as data: the mcp
// service registers exactly these, the documents list them and the tests
// check them, all from this table. The argument schemas reuse the REST
// schemas; their descriptions are written for a model filling them in. The
// long tool descriptions stay with the handlers in the mcp service.
import { Pricing, Product, ProductList, ProductListQuery, Handle } from './catalog.js';
import { LIMITS, type Scope } from './common.js';
import { OPERATIONS, type RouteId } from './operations.js';
import { ShopRequestBody, ShopRequestId, ShopRequestResult } from './shop-requests.js';
import { Quote, QuoteBody } from './quotes.js';
import { ShopCategory, ShopList } from './shops.js';
import { z } from './zod.js';

export const SearchProductsArgs = z.strictObject({
  q: ProductListQuery.shape.q.describe(
    'Free text searched in title, type, tags and description; every word must match (German product words work best, e.g. "hoodie", "bio shirt", "tasche"). ' +
      `Best matches come first: title before type, tags and description, whole words before parts of words. Max ${LIMITS.queryQMax} characters.`,
  ),
  type: ProductListQuery.shape.type.describe(
    `Product type or tag, e.g. "T-Shirt", "Hoodie", "Polo", "Cap", "Tasche", "Schürze", "kinder", "bio". Max ${LIMITS.queryTypeMax} characters.`,
  ),
  decoration: ProductListQuery.shape.decoration.describe(
    'Only products supporting this technique: "dtf" (print, always available) or "stick" (embroidery, currently paused).',
  ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.listProductsLimitMax)
    .default(LIMITS.listProductsLimitDefault)
    .describe(`Products per page, 1 to ${LIMITS.listProductsLimitMax} (default ${LIMITS.listProductsLimitDefault}).`),
  offset: z.number().int().min(0).default(0).describe('How many products to skip, for paging (default 0).'),
});

export const GetProductArgs = z.strictObject({
  handle: Handle.describe('The product handle exactly as returned by search_products, e.g. "bio-t-shirt-unisex". Never guess one.'),
});

export const GetPricingArgs = z.strictObject({});

export const ListPublicShopsArgs = z.strictObject({
  category: ShopCategory.optional().describe(
    'Only shops of this category: "schule" (school), "verein" (club), "unternehmen" (company), "handwerker" (craft business), "gastro" (restaurant).',
  ),
});

export const GetShopRequestArgs = z.strictObject({
  id: ShopRequestId.describe('The id create_shop_request returned ("req_" and 16 hex digits), e.g. "req_0123456789abcdef". Never guess one.'),
});

/**
 * The name `create_shop_request` gives its `idempotency_key` argument as an
 * HTTP header (the `x-mcp-header` schema extension of MCP 2026-07-28): such
 * clients send the key as `Mcp-Param-Idempotency-Key` too, so a proxy sees it
 * without reading the body.
 */
export const IDEMPOTENCY_KEY_MCP_HEADER = 'Idempotency-Key';
export const MCP_PARAM_HEADER_PREFIX = 'Mcp-Param-';

const idempotencyWindowHours = LIMITS.idempotencyWindowSeconds / 3600;
const logoMaxMb = LIMITS.logoMaxBytes / (1024 * 1024);
const body = ShopRequestBody.shape;

/**
 * The shop request body of the REST API plus the idempotency key the REST API
 * takes as a header. Same schemas; the descriptions are for a model filling it in.
 */
export const CreateShopRequestArgs = z.strictObject({
  ...body,
  organization: body.organization.describe(
    'Who the shop is for. type: "schule" (school) or "verein" (club) = consumer shop with gross prices; "unternehmen" (company), "handwerk" (craft business) or "gastro" (restaurant) = company shop with net prices and volume tiers. contact_name and email are the real contact person the operator replies to: use only details the person gave you.',
  ),
  shop_name: body.shop_name.describe(`Name of the shop as members will see it, up to ${LIMITS.shopNameMax} characters.`),
  products: body.products.describe(
    `Up to ${LIMITS.productsPerShopRequest} products. Each: product = a handle from search_products; colors = color names exactly as the product lists them; decoration = "dtf" (print, default) or "stick" (embroidery, paused); ` +
      `designs = [{position, width_cm ${LIMITS.designWidthMinCm}-${LIMITS.designWidthMaxCm}, logo_url (public http(s) PNG/SVG/JPG up to ${logoMaxMb} MB), comment}]. Required unless design_service is true.`,
  ),
  design_service: body.design_service.describe('true when the operator should design the collection; products may then be empty.'),
  group_order_until: body.group_order_until.describe('YYYY-MM-DD: collect all member orders until this date and ship them together.'),
  password_protection: body.password_protection.describe('true for a shop only members with the password can open.'),
  private_shop: body.private_shop.describe('Company shops only: show the shop in the customer account instead of publicly.'),
  customer_account: body.customer_account.describe('true to create a customer account for the contact person.'),
  occasion: body.occasion.describe(`What the merch is for (e.g. "Sommerfest 2026"), up to ${LIMITS.occasionMax} characters.`),
  team_size: body.team_size.describe('Number of members or employees; picks the volume tier of company shops.'),
  notes: body.notes.describe(`Anything else the operator should know, up to ${LIMITS.notesMax} characters. No personal data beyond the contact.`),
  quote_id: body.quote_id.describe(
    'The quote_id get_quote returned for these products, so the operator sees the prices the person was shown. Leave it out when there is none; an unknown or expired one is refused (validation_failed on quote_id).',
  ),
  idempotency_key: z
    .string()
    .min(1)
    .max(255)
    // What the requests service takes as its Idempotency-Key header.
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters, without spaces')
    .describe(
      `A new random value (e.g. a UUID) for each distinct shop request. Repeating a call with the same key and the same arguments within ${idempotencyWindowHours} hours returns the first result instead of creating a second request; use it when retrying after a timeout.`,
    )
    .meta({ 'x-mcp-header': IDEMPOTENCY_KEY_MCP_HEADER })
    .optional(),
});

/** MCP `ToolAnnotations` without the title, which the table keeps as `title`. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** A read of our own data: changes nothing, repeats safely, reaches no one outside. */
const READ: ToolHints = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** One tool of the MCP endpoint. */
export interface McpToolSpec<Name extends string = string, Args extends z.ZodObject = z.ZodObject, Output extends z.ZodType = z.ZodType> {
  name: Name;
  /** Display name for people choosing a tool. */
  title: string;
  /** One line for the documents; the model reads the mcp service's longer description. */
  summary: string;
  args: Args;
  /** The success shape; a failed call answers with the error envelope instead. */
  output: Output;
  /**
   * The four MCP tool annotations, each set explicitly: hosts and both app
   * directories read them, and a missing one means the protocol's cautious
   * default (or a refused submission). `readOnlyHint` reads only, so
   * repeating a call is safe.
   */
  hints: ToolHints;
  /** The REST operation the tool performs, by its id in the operations table. */
  operation: RouteId;
  /**
   * The scope a caller must hold before the tool runs, taken from the
   * operation's table entry (never written here) where that operation
   * requires credentials. Without credentials such a call on /mcp is refused
   * with a Bearer challenge (HTTP 401), which OAuth-capable hosts follow; on
   * /sandbox/mcp it runs anonymously, as the client address, which owns the
   * shop requests it creates there and may read them back. A tool over an
   * open operation has none and is open to every caller, as that operation
   * is without credentials.
   */
  scope?: Scope | undefined;
}

/** The scope of a tool over `operation`: the operation's own, where it requires credentials. */
export function toolScopeOf(operation: RouteId): Scope | undefined {
  const op = OPERATIONS.find((o) => o.id === operation);
  if (!op) throw new Error(`No operation '${operation}' in the operations table`);
  return op.auth === 'required' && 'scope' in op ? op.scope : undefined;
}

// Keeps each entry's own name and schema types, so a handler gets typed
// arguments; `readOnly` is the hint, spelled once, and `scope` the operation's.
const tool = <const Name extends string, Args extends z.ZodObject, Output extends z.ZodType>(spec: Omit<McpToolSpec<Name, Args, Output>, 'scope'>) => ({
  ...spec,
  readOnly: spec.hints.readOnlyHint,
  scope: toolScopeOf(spec.operation),
});

export const MCP_TOOLS = [
  tool({
    name: 'search_products',
    operation: 'listProducts',
    title: 'Search printable base products',
    summary: 'Search the catalog of printable base products (free text, type, decoration; paged).',
    args: SearchProductsArgs,
    output: ProductList,
    hints: READ,
  }),
  tool({
    name: 'get_product',
    operation: 'getProduct',
    title: 'Get one product with prices',
    summary: 'One product by handle: colors, sizes, decoration, from-price and volume tiers.',
    args: GetProductArgs,
    output: Product,
    hints: READ,
  }),
  tool({
    name: 'get_pricing',
    operation: 'getPricing',
    title: 'Get the pricing overview',
    summary: 'Pricing overview: free setup, minimum order quantity 1, from-prices of every product.',
    args: GetPricingArgs,
    output: Pricing,
    hints: READ,
  }),
  tool({
    name: 'list_public_shops',
    operation: 'listPublicShops',
    title: 'List public merch shops',
    summary: 'Public merch shops, optionally by category.',
    args: ListPublicShopsArgs,
    output: ShopList,
    hints: READ,
  }),
  tool({
    name: 'create_shop_request',
    operation: 'createShopRequest',
    title: 'Request a new merch shop',
    summary: 'Submit a shop request for an organization (needs authorization on /mcp; anonymous on the sandbox).',
    args: CreateShopRequestArgs,
    output: ShopRequestResult,
    // A live request e-mails the operator team and the contact person, which
    // cannot be taken back: both directories ask for destructive and open
    // world on a tool that sends e-mail. A retry without the same
    // idempotency_key makes a second request.
    hints: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  }),
  tool({
    name: 'get_shop_request',
    operation: 'getShopRequest',
    title: 'Read back a shop request',
    summary: 'One shop request by id, as create_shop_request returned it (needs the credentials that created it).',
    args: GetShopRequestArgs,
    output: ShopRequestResult,
    hints: READ,
  }),
  // The body of POST /v1/quotes, unchanged: the one schema behind both. It
  // stores the quote it answers, but changes nothing anyone else sees, so a
  // repeat is safe and hosts need not ask before calling it.
  tool({
    name: 'get_quote',
    operation: 'createQuote',
    title: 'Get exact prices (a quote)',
    summary: 'Exact prices for products and quantities for an organization type: the tier, unit and line prices, totals with VAT; a shop request may name its quote_id.',
    args: QuoteBody,
    output: Quote,
    hints: READ,
  }),
] as const;

export type McpToolName = (typeof MCP_TOOLS)[number]['name'];
export type McpTool<Name extends McpToolName = McpToolName> = Extract<(typeof MCP_TOOLS)[number], { name: Name }>;
/** A tool's arguments after parsing, defaults applied. */
export type McpToolArgs<Name extends McpToolName> = z.output<McpTool<Name>['args']>;

export const MCP_TOOL_NAMES: readonly McpToolName[] = MCP_TOOLS.map((t) => t.name);

export function mcpTool<Name extends McpToolName>(name: Name): McpTool<Name> {
  const found = MCP_TOOLS.find((t): t is McpTool<Name> => t.name === name);
  if (!found) throw new Error(`No MCP tool named ${name}`);
  return found;
}
