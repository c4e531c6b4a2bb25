// What a model reads before it calls a tool, written for a model that has
// never seen this API. One entry per tool of the contracts table, so a new
// tool without a description does not compile.
import { LIMITS, SERVICE_FACTS, type McpToolName } from '@msa/contracts';

const ERROR_NOTE =
  'On failure the result has isError: true and its structuredContent is the API error envelope {"error": {code, status, message, hint, docs, fields}}: follow error.hint and fix each entry of error.fields.';

export const TOOL_DESCRIPTIONS: Record<McpToolName, string> = {
  search_products:
    'Searches the catalog of printable base products (T-shirts, hoodies, polos, caps, bags, aprons, …) that a merch shop can offer. ' +
    'Use it first whenever a product is mentioned, to find its exact `handle`; never invent handles. ' +
    'Returns {total, limit, offset, products[]}; each product has handle, title, type, colors, sizes, decoration techniques, ' +
    'printed_price_from (gross EUR incl. 19 % VAT for one printed piece) and volume tiers (quantity_prices_dtf: ab = from quantity, brutto/netto per piece). ' +
    `With no arguments it lists the first ${LIMITS.listProductsLimitDefault} products; page with limit and offset. ` +
    ERROR_NOTE,

  get_product:
    'Returns one product by its handle: title, description, colors (use these names exactly in a shop request), sizes, decoration techniques ' +
    '("dtf" = print, always available; "stick" = embroidery, paused), printed_price_from (gross EUR incl. 19 % VAT) and volume tiers. ' +
    'The handle must come from search_products. If the product is unknown (error code product_not_found), call search_products with other words and ask the person which match they mean; never invent a handle. ' +
    ERROR_NOTE,

  get_pricing:
    'Returns how pricing works: shop setup is free, the minimum order quantity is 1, members of the organization order and pay individually, ' +
    'delivery to Germany and Austria, the decoration techniques, and every product with its from-prices and volume tiers. ' +
    'Prices are gross EUR incl. 19 % VAT unless a field is named netto. Use it to answer "what does it cost?". Takes no arguments. ' +
    ERROR_NOTE,

  list_public_shops:
    'Lists merch shops that are already live and public (name, category, url, whether a password protects it), optionally filtered by category. ' +
    'Use it to show examples of existing shops, or to check whether an organization already has one before requesting a new shop. ' +
    'Returns {generated_at, count, shops[]}. ' +
    ERROR_NOTE,

  create_shop_request:
    'Submits a request for a free, branded merch shop for an organization (school, club, company, craft business or restaurant in Germany or Austria). ' +
    `The operator team builds the shop and e-mails the contact person within ${SERVICE_FACTS.replyWithinHours} hours. ` +
    'Before calling: look up every product with search_products and use its handle and its exact color names; never invent handles, colors or contact details; ' +
    'show the person you act for what you will send and get an explicit yes. ' +
    'It needs credentials with the scope requests:write: called without any on the production endpoint, it asks the host to authorize (OAuth) or to send an API key (Authorization: Bearer). ' +
    'With sandbox credentials, or on the sandbox endpoint (where it also works without credentials), the request is validated and stored but never sent, and the result says sandbox: true. ' +
    'Only live credentials on the production endpoint send it to the operator. ' +
    'Pass a new idempotency_key and reuse it only to retry the same request. ' +
    'Returns {id, status: "received", sandbox, shop_type, products with estimated_price_from, warnings, next_steps}; read warnings (e.g. an unknown color, paused embroidery) and tell the person. Keep the id: get_shop_request reads the request back. ' +
    'On error code validation_failed, fix each entry of error.fields (dotted paths such as products.0.product) and call again; on rate_limited, wait until the time the message names. ' +
    ERROR_NOTE,

  get_shop_request:
    'Reads back a shop request created earlier with create_shop_request, by the id that call returned ("req_" and 16 hex digits): ' +
    'the same {id, status, sandbox, shop_type, products with estimated_price_from, warnings, next_steps}. Use it to confirm what was sent, or to answer the person after a lost connection. ' +
    'It needs the credentials that created the request (scope requests:read): called without any on the production endpoint, it asks the host to authorize (OAuth) or to send an API key. ' +
    'On the sandbox endpoint it also works without credentials for the requests made there without credentials from the same address. ' +
    'A request made with other credentials answers error code forbidden; an unknown id shop_request_not_found. Never guess an id. ' +
    ERROR_NOTE,

  get_quote:
    'Returns exact prices, so you never compute one: for an organization_type and lines of {product, quantity, decoration, colors} it picks the volume tier, ' +
    'gives per line tier_from, unit_net, unit_gross, total_net and total_gross, and for the whole total_net, vat (19 %) and total_gross in EUR, rounded to the cent. ' +
    'Schools and clubs ("schule", "verein") pay the gross from-price per piece whatever the quantity; companies, craft businesses and restaurants ("unternehmen", "handwerk", "gastro") the net price of their volume tier plus VAT. ' +
    'Use it whenever the person asks what merch costs, and tell them the totals exactly as returned; never add up, round or convert prices yourself. ' +
    'Each product must be a handle from search_products (or its exact title). Read warnings (an unlisted color, paused embroidery) and tell the person. ' +
    `The result has a quote_id (stored ${LIMITS.quoteLifetimeDays} days, with the prices of this moment); pass it as quote_id to create_shop_request so the operator sees the same prices. No credentials needed. ` +
    'On error code validation_failed, an unknown product is named by its field (lines.0.product): call search_products with other words and ask the person. ' +
    ERROR_NOTE,
};
