// The rules of a shop request beyond its shape: which products the caller
// means, what the result promises (shop type, prices, next steps) and which
// oddities become warnings instead of rejections. No express, no Redis.
import {
  SERVICE_FACTS,
  shopTypeOf,
  type FieldProblem,
  type Product,
  type Quote,
  type ShopRequestBody,
  type ShopRequestResult,
  type ShopType,
} from '@msa/contracts';
import { isNonPublicUrl } from '@msa/service-kit/address-policy';
import type { ProductIndex } from './product-index.js';
import { checkRequestedLine, unknownProduct, type ListedColorsGiven } from './requested-line.js';
import { volumeTierFor } from './volume-tiers.js';

export interface ResultContext {
  id: string;
  createdAt: Date;
  sandbox: boolean;
  /** No credentials (anonymous sandbox call through MCP). */
  anonymous: boolean;
  publicBaseUrl: string;
}

export type ResultOutcome = { ok: true; result: ShopRequestResult } | { ok: false; problems: FieldProblem[] };

/**
 * b2c: the gross from-price of one printed piece. b2b: the net price of the
 * volume tier that fits the team size (the highest `ab` not above it), the
 * first tier without a team size; null when the product has no such price.
 */
export function estimatePriceFrom(product: Product, shopType: ShopType, teamSize?: number): number | null {
  if (shopType === 'b2c') return product.printed_price_from ?? null;
  return volumeTierFor(product, teamSize ?? 0)?.netto ?? null;
}

export function nextSteps({ id, sandbox, anonymous, publicBaseUrl }: Omit<ResultContext, 'createdAt'>): string {
  if (sandbox && anonymous) {
    return (
      'Sandbox request: validated and stored; nothing was sent to the operator. ' +
      `To submit it for real, create free credentials with POST ${publicBaseUrl}/v1/keys ` +
      '(mode "live", scope requests:write), then send the same body to ' +
      `POST ${publicBaseUrl}/v1/shop-requests with Authorization: Bearer <API_KEY>.`
    );
  }
  if (sandbox) {
    return (
      'Sandbox request: validated and stored; nothing was sent to the operator. ' +
      `Read it back with GET ${publicBaseUrl}/sandbox/v1/shop-requests/${id}. ` +
      `To submit it for real, send the same body to POST ${publicBaseUrl}/v1/shop-requests with a live key ` +
      `(create one with POST ${publicBaseUrl}/v1/keys and mode "live").`
    );
  }
  return (
    'Received: the request was sent to the operator, who builds the shop and replies to the contact ' +
    `e-mail address within ${SERVICE_FACTS.replyWithinHours} hours; the contact also gets a confirmation e-mail. ` +
    `Read the stored request with GET ${publicBaseUrl}/v1/shop-requests/${id}.`
  );
}

export function unknownQuote(id: string): FieldProblem {
  return { field: 'quote_id', message: `unknown or expired quote '${id}'; make a new one with POST /v1/quotes` };
}

/**
 * Resolves every requested product against the catalog and builds the
 * result. Unknown products, and a named quote that is unknown or expired
 * (`quote` null), are problems (422); everything else the operator can sort
 * out with the customer becomes a warning.
 */
export function buildShopRequestResult(body: ShopRequestBody, products: ProductIndex, ctx: ResultContext, quote?: Quote | null): ResultOutcome {
  const shopType = shopTypeOf(body.organization.type);
  const problems: FieldProblem[] = [];
  const warnings: string[] = [];
  const resultProducts: ShopRequestResult['products'] = [];
  const listsGiven: ListedColorsGiven = new Map();

  (body.products ?? []).forEach((requested, i) => {
    const field = `products.${i}`;
    const product = products.find(requested.product);
    if (!product) {
      problems.push(unknownProduct(field, requested.product));
      return;
    }
    const checked = checkRequestedLine(field, product, requested, listsGiven);
    warnings.push(...checked.warnings);

    (requested.designs ?? []).forEach((design, j) => {
      if (design.logo_url && isNonPublicUrl(design.logo_url)) {
        warnings.push(
          `${field}.designs.${j}.logo_url: the logo is on a host that is not publicly reachable, so it cannot be downloaded; ` +
            'use a public http(s) URL or send the logo when the operator replies.',
        );
      }
    });

    resultProducts.push({
      product: product.title,
      handle: product.handle,
      colors: checked.colors,
      decoration: requested.decoration,
      designs: requested.designs?.length ?? 0,
      estimated_price_from: estimatePriceFrom(product, shopType, body.team_size),
    });
  });

  if (body.quote_id !== undefined && !quote) problems.push(unknownQuote(body.quote_id));
  if (problems.length > 0) return { ok: false, problems };

  if (quote && quote.shop_type !== shopType) {
    warnings.push(
      `quote_id: the quote prices a ${quote.shop_type} shop (organization type ${quote.organization_type}), this request is for a ${shopType} shop (${body.organization.type}); ` +
        'the operator prices the shop by the request.',
    );
  }

  if (body.private_shop && shopType === 'b2c') {
    warnings.push(
      'private_shop: private shops are for company shops only (unternehmen, handwerk, gastro); ' +
        `this ${body.organization.type} shop will be public. Use password_protection to restrict access.`,
    );
  }

  return {
    ok: true,
    result: {
      id: ctx.id,
      status: 'received',
      sandbox: ctx.sandbox,
      created_at: ctx.createdAt.toISOString(),
      organization: body.organization.name,
      shop_name: body.shop_name,
      shop_type: shopType,
      products: resultProducts,
      next_steps: nextSteps(ctx),
      warnings,
      upstream: null,
      ...(quote ? { quote_id: quote.quote_id } : {}),
    },
  };
}
