// The five tools of spec §4 "MCP endpoint". Each handler is thin: parse the
// arguments with the contracts schema, call one service with the caller's
// context, and return its answer or its error envelope. Titles and
// descriptions are written for a model that has never seen this API.
import {
  ErrorEnvelope,
  Handle,
  Pricing,
  Product,
  ProductList,
  ProductListQuery,
  ShopCategory,
  ShopList,
  ShopRequestBody,
  ShopRequestResult,
  z,
  type CallContext,
} from '@msa/contracts';
import { toFieldProblems } from '@msa/service-kit';
import type { CallToolResult, McpServer } from '@modelcontextprotocol/server';
import type { McpDeps } from './deps.js';
import { advertisedInput, advertisedOutput } from './tool-schema.js';
import { asEnvelope, envelopeOfFailure, toolFailure, toolSuccess, type EnvelopeFactory } from './tool-result.js';

const ERROR_NOTE =
  'On failure the result has isError: true and its structuredContent is the API error envelope {"error": {code, status, message, hint, docs, fields}}: follow error.hint and fix each entry of error.fields.';

export const SearchProductsArgs = z.strictObject({
  q: ProductListQuery.shape.q.describe(
    'Free text searched in title, type, tags and description; every word must match (German product words work best, e.g. "hoodie", "bio shirt", "tasche"). ' +
      'Best matches come first: title before type, tags and description, whole words before parts of words. Max 100 characters.',
  ),
  type: ProductListQuery.shape.type.describe(
    'Product type or tag, e.g. "T-Shirt", "Hoodie", "Polo", "Cap", "Tasche", "Schürze", "kinder", "bio". Max 60 characters.',
  ),
  decoration: ProductListQuery.shape.decoration.describe(
    'Only products supporting this technique: "dtf" (print, always available) or "stick" (embroidery, currently paused).',
  ),
  limit: z.number().int().min(1).max(250).default(50).describe('Products per page, 1 to 250 (default 50).'),
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

const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .describe(
    'A new random value (e.g. a UUID) for each distinct shop request. Repeating a call with the same key and the same arguments within 24 hours returns the first result instead of creating a second request; use it when retrying after a timeout.',
  );

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
  shop_name: body.shop_name.describe('Name of the shop as members will see it, up to 80 characters.'),
  products: body.products.describe(
    'Up to 20 products. Each: product = a handle from search_products; colors = color names exactly as the product lists them; decoration = "dtf" (print, default) or "stick" (embroidery, paused); designs = [{position, width_cm 1-40, logo_url (public http(s) PNG/SVG/JPG up to 4 MB), comment}]. Required unless design_service is true.',
  ),
  design_service: body.design_service.describe('true when the operator should design the collection; products may then be empty.'),
  group_order_until: body.group_order_until.describe('YYYY-MM-DD: collect all member orders until this date and ship them together.'),
  password_protection: body.password_protection.describe('true for a shop only members with the password can open.'),
  private_shop: body.private_shop.describe('Company shops only: show the shop in the customer account instead of publicly.'),
  customer_account: body.customer_account.describe('true to create a customer account for the contact person.'),
  occasion: body.occasion.describe('What the merch is for (e.g. "Sommerfest 2026"), up to 120 characters.'),
  team_size: body.team_size.describe('Number of members or employees; picks the volume tier of company shops.'),
  notes: body.notes.describe('Anything else the operator should know, up to 2000 characters. No personal data beyond the contact.'),
  idempotency_key: IdempotencyKey.optional(),
});

const orError = (schema: z.ZodType) => advertisedOutput(z.union([schema, ErrorEnvelope]));

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/** Parses tool arguments; a problem becomes the `validation_failed` envelope with one field per issue. */
function parseArgs<S extends z.ZodType>(schema: S, args: unknown, envelope: EnvelopeFactory): { ok: true; value: z.infer<S> } | { ok: false; result: CallToolResult } {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    result: toolFailure(
      envelope('validation_failed', 'The tool arguments are invalid; see error.fields.', { fields: toFieldProblems(parsed.error) }),
    ),
  };
}

export function registerTools(server: McpServer, deps: McpDeps, ctx: CallContext): void {
  const { catalog, shops, requests, envelope, urls } = deps;

  /** Runs a call and turns any failure into an error result; counts outcomes. */
  async function run(tool: string, service: string, fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
    try {
      const result = await fn();
      deps.toolCalls?.inc({ tool, outcome: result.isError ? 'error' : 'ok' });
      return result;
    } catch (err) {
      deps.toolCalls?.inc({ tool, outcome: 'error' });
      const env = envelopeOfFailure(err, envelope, service);
      if (env.error.status >= 500) deps.logger.warn({ err, tool }, 'tool call failed upstream');
      return toolFailure(withToolHint(tool, env));
    }
  }

  server.registerTool(
    'search_products',
    {
      title: 'Search printable base products',
      description:
        'Searches the catalog of printable base products (T-shirts, hoodies, polos, caps, bags, aprons, …) that a merch shop can offer. ' +
        'Use it first whenever a product is mentioned, to find its exact `handle`; never invent handles. ' +
        'Returns {total, limit, offset, products[]}; each product has handle, title, type, colors, sizes, decoration techniques, ' +
        'printed_price_from (gross EUR incl. 19 % VAT for one printed piece) and volume tiers (quantity_prices_dtf: ab = from quantity, brutto/netto per piece). ' +
        'With no arguments it lists the first 50 products; page with limit and offset. ' +
        ERROR_NOTE,
      inputSchema: advertisedInput(SearchProductsArgs),
      outputSchema: orError(ProductList),
      annotations: { title: 'Search products', ...READ_ONLY },
    },
    (args: unknown) =>
      run('search_products', 'catalog', async () => {
        const parsed = parseArgs(SearchProductsArgs, args, envelope);
        if (!parsed.ok) return parsed.result;
        return toolSuccess(await catalog.listProducts(ctx, parsed.value));
      }),
  );

  server.registerTool(
    'get_product',
    {
      title: 'Get one product with prices',
      description:
        'Returns one product by its handle: title, description, colors (use these names exactly in a shop request), sizes, decoration techniques ' +
        '("dtf" = print, always available; "stick" = embroidery, paused), printed_price_from (gross EUR incl. 19 % VAT) and volume tiers. ' +
        'The handle must come from search_products. If the product is unknown (error code product_not_found), call search_products with other words and ask the person which match they mean; never invent a handle. ' +
        ERROR_NOTE,
      inputSchema: advertisedInput(GetProductArgs),
      outputSchema: orError(Product),
      annotations: { title: 'Get product', ...READ_ONLY },
    },
    (args: unknown) =>
      run('get_product', 'catalog', async () => {
        const parsed = parseArgs(GetProductArgs, args, envelope);
        if (!parsed.ok) return parsed.result;
        return toolSuccess(await catalog.getProduct(ctx, parsed.value.handle));
      }),
  );

  server.registerTool(
    'get_pricing',
    {
      title: 'Get the pricing overview',
      description:
        'Returns how pricing works: shop setup is free, the minimum order quantity is 1, members of the organization order and pay individually, ' +
        'delivery to Germany and Austria, the decoration techniques, and every product with its from-prices and volume tiers. ' +
        'Prices are gross EUR incl. 19 % VAT unless a field is named netto. Use it to answer "what does it cost?". Takes no arguments. ' +
        ERROR_NOTE,
      inputSchema: advertisedInput(GetPricingArgs),
      outputSchema: orError(Pricing),
      annotations: { title: 'Get pricing', ...READ_ONLY },
    },
    (args: unknown) =>
      run('get_pricing', 'catalog', async () => {
        const parsed = parseArgs(GetPricingArgs, args, envelope);
        if (!parsed.ok) return parsed.result;
        return toolSuccess(await catalog.getPricing(ctx));
      }),
  );

  server.registerTool(
    'list_public_shops',
    {
      title: 'List public merch shops',
      description:
        'Lists merch shops that are already live and public (name, category, url, whether a password protects it), optionally filtered by category. ' +
        'Use it to show examples of existing shops, or to check whether an organization already has one before requesting a new shop. ' +
        'Returns {generated_at, count, shops[]}. ' +
        ERROR_NOTE,
      inputSchema: advertisedInput(ListPublicShopsArgs),
      outputSchema: orError(ShopList),
      annotations: { title: 'List public shops', ...READ_ONLY },
    },
    (args: unknown) =>
      run('list_public_shops', 'shops', async () => {
        const parsed = parseArgs(ListPublicShopsArgs, args, envelope);
        if (!parsed.ok) return parsed.result;
        return toolSuccess(await shops.listShops(ctx, parsed.value.category));
      }),
  );

  server.registerTool(
    'create_shop_request',
    {
      title: 'Request a new merch shop',
      description:
        'Submits a request for a free, branded merch shop for an organization (school, club, company, craft business or restaurant in Germany or Austria). ' +
        'The operator team builds the shop and e-mails the contact person within 48 hours. ' +
        'Before calling: look up every product with search_products and use its handle and its exact color names; never invent handles, colors or contact details; ' +
        'show the person you act for what you will send and get an explicit yes. ' +
        'Without credentials on this MCP connection, or with sandbox credentials, the request goes to the sandbox: it is validated and stored but never sent, and the result says sandbox: true. ' +
        'Only a live API key or token (Authorization: Bearer) sends it to the operator. ' +
        'Pass a new idempotency_key and reuse it only to retry the same request. ' +
        'Returns {id, status: "received", sandbox, shop_type, products with estimated_price_from, warnings, next_steps}; read warnings (e.g. an unknown color, paused embroidery) and tell the person. ' +
        'On error code validation_failed, fix each entry of error.fields (dotted paths such as products.0.product) and call again; on rate_limited, wait until the time the message names. ' +
        ERROR_NOTE,
      inputSchema: advertisedInput(CreateShopRequestArgs),
      outputSchema: orError(ShopRequestResult),
      annotations: {
        title: 'Create shop request',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    (args: unknown) =>
      run('create_shop_request', 'requests', async () => {
        // Only the wrapper is checked here; the requests service validates the
        // body itself, including product handles, so both paths answer alike.
        if (!args || typeof args !== 'object' || Array.isArray(args)) {
          return toolFailure(envelope('validation_failed', 'The tool arguments must be an object.', { fields: [{ field: '(arguments)', message: 'expected an object' }] }));
        }
        const { idempotency_key: key, ...body } = args as Record<string, unknown>;
        const keyParsed = parseArgs(z.object({ idempotency_key: IdempotencyKey.optional() }), { idempotency_key: key }, envelope);
        if (!keyParsed.ok) return keyParsed.result;

        // No credentials: a sandbox request the requests service owns by client IP.
        const anonymous = ctx.principal === null;
        const callCtx: CallContext = anonymous ? { ...ctx, sandbox: true } : ctx;
        const res = await requests.createShopRequest(callCtx, body, keyParsed.value.idempotency_key);
        if (res.status !== 201 && res.status !== 200) {
          const env = asEnvelope(res.body) ?? envelope('upstream_unavailable', `The requests service answered ${res.status}.`);
          const retryAfter = res.headers.get('retry-after');
          if (retryAfter && env.error.status === 429) {
            env.error.hint = `${env.error.hint ?? ''} Retry after ${retryAfter} seconds.`.trim();
          }
          return toolFailure(env);
        }
        const result = ShopRequestResult.parse(res.body);
        if (!anonymous) return toolSuccess(result);
        return anonymousResult(result, urls.root, ctx.sandbox);
      }),
  );
}

/**
 * The result of a shop request made without credentials. The data keeps the
 * contracts shape (so it still validates against the output schema); the
 * news a model must not miss rides where it reads first: a plain sentence
 * as the first text block, the first warning, and next_steps naming both
 * ways to authenticate. On /mcp the caller meant a live request, so the
 * result says plainly that nothing reached the operator.
 */
export function anonymousResult(result: ShopRequestResult, root: string, onSandboxPath: boolean): CallToolResult {
  const metadata = `${root}/.well-known/oauth-protected-resource/mcp`;
  const stored = onSandboxPath
    ? `Stored on the sandbox as ${result.id} (this is the sandbox endpoint): validated and stored, never sent to the operator.`
    : `Stored on the SANDBOX, not sent: this MCP connection has no credentials, so shop request ${result.id} was validated and stored on the sandbox and did not reach the operator team.`;
  const howTo =
    `To send it for real, authenticate this MCP connection: either as an OAuth client (protected resource metadata at ${metadata}, token from ${root}/oauth/token) ` +
    `or with an API key (POST ${root}/v1/keys with {"name", "email", "mode": "live"}, then send the header Authorization: Bearer <API_KEY> on ${root}/mcp). ` +
    'Confirm the details with the person you act for, then call create_shop_request again with a new idempotency_key.';
  const data: ShopRequestResult = {
    ...result,
    warnings: onSandboxPath ? result.warnings : [`${stored}`, ...result.warnings],
    next_steps: `${stored} ${howTo}`,
  };
  const structured = data as unknown as Record<string, unknown>;
  return {
    content: [
      { type: 'text', text: `${stored}
${howTo}` },
      { type: 'text', text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}

/** Tool-specific advice on top of the API's hint, where a model needs more than the REST text. */
function withToolHint(tool: string, env: ErrorEnvelope): ErrorEnvelope {
  if (env.error.code === 'product_not_found') {
    return { error: { ...env.error, hint: 'Call search_products with other words to find the right handle, and ask the person which match they mean; never invent a handle.' } };
  }
  if (tool !== 'create_shop_request' && env.error.status >= 500) {
    return { error: { ...env.error, hint: `${env.error.hint ?? 'Retry in a moment.'} This tool is read-only, so retrying is safe.` } };
  }
  return env;
}
