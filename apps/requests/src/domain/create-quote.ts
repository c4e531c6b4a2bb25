// Making a quote, from a parsed body to a stored Quote: resolve each line's
// product against the catalog, price it (quote-pricing.ts), collect the
// warnings a shop request would give, store the result for its lifetime.
// No express: the route passes in what it knows about the call.
import { randomBytes } from 'node:crypto';
import {
  CURRENCY,
  shopTypeOf,
  type CallContext,
  type FieldProblem,
  type Quote,
  type QuoteBody,
  type QuoteLine,
} from '@msa/contracts';
import { appError, toFieldProblems, type AppError, type Logger, type Metrics } from '@msa/service-kit';
import type { z } from 'zod';
import type { ProductCatalog } from '../catalog/product-catalog.js';
import type { QuoteStore } from '../store/quote-store.js';
import type { ProductIndex } from './product-index.js';
import { priceLines, toEuros, unitPriceOf, type UnitPrice } from './quote-pricing.js';
import { checkRequestedLine, unknownProduct, unknownProductsInRawBody, type ListedColorsGiven } from './requested-line.js';

type Counter = ReturnType<Metrics['counter']>;

export interface QuoteDeps {
  quotes: QuoteStore;
  catalog: ProductCatalog;
  /** QUOTE_LIFETIME_SECONDS: how long a quote is stored and can be named. */
  quoteLifetimeSeconds: number;
  /** Labels: outcome (created, invalid, unavailable). */
  quoteCounter: Counter;
}

export interface QuoteCall {
  ctx: CallContext;
  at: Date;
  log: Logger;
}

export function newQuoteId(): string {
  return `quo_${randomBytes(8).toString('hex')}`;
}

export type QuoteOutcome = { ok: true; quote: Quote } | { ok: false; problems: FieldProblem[] };

/**
 * Prices a body against the products. Unknown products, and products the
 * catalog gives no price for, are problems (422); everything else the
 * operator can sort out becomes a warning, worded as in a shop request.
 */
export function buildQuote(body: QuoteBody, products: ProductIndex, meta: { id: string; createdAt: Date; lifetimeSeconds: number }): QuoteOutcome {
  const shopType = shopTypeOf(body.organization_type);
  const problems: FieldProblem[] = [];
  const warnings: string[] = [];
  const listsGiven: ListedColorsGiven = new Map();
  const resolved: { product: { title: string; handle: string }; unit: UnitPrice; quantity: number; decoration: 'dtf' | 'stick' }[] = [];

  body.lines.forEach((line, i) => {
    const field = `lines.${i}`;
    const product = products.find(line.product);
    if (!product) {
      problems.push(unknownProduct(field, line.product));
      return;
    }
    const unit = unitPriceOf(product, shopType, line.quantity);
    if (!unit) {
      problems.push({ field: `${field}.product`, message: `'${product.title}' has no price in the catalog; the operator prices it on request` });
      return;
    }
    warnings.push(...checkRequestedLine(field, product, line, listsGiven).warnings);
    if (unit.note === 'below_first_tier') {
      warnings.push(`${field}.quantity: ${line.quantity} is below the first volume tier of '${product.title}' (from ${unit.tierFrom} pieces); priced at that tier.`);
    } else if (unit.note === 'no_tiers') {
      warnings.push(`${field}.product: '${product.title}' has no volume tiers; priced at its from-price without VAT.`);
    }
    resolved.push({ product, unit, quantity: line.quantity, decoration: line.decoration });
  });
  if (problems.length > 0) return { ok: false, problems };

  const totals = priceLines(shopType, resolved);
  const lines: QuoteLine[] = resolved.map(({ product, unit, quantity, decoration }, i) => ({
    product: product.title,
    handle: product.handle,
    quantity,
    decoration,
    tier_from: unit.tierFrom,
    unit_net: toEuros(unit.netCents),
    unit_gross: toEuros(unit.grossCents),
    total_net: toEuros(totals.lines[i]!.totalNetCents),
    total_gross: toEuros(totals.lines[i]!.totalGrossCents),
  }));
  return {
    ok: true,
    quote: {
      quote_id: meta.id,
      organization_type: body.organization_type,
      shop_type: shopType,
      currency: CURRENCY,
      lines,
      total_net: toEuros(totals.totalNetCents),
      vat: toEuros(totals.vatCents),
      total_gross: toEuros(totals.totalGrossCents),
      created_at: meta.createdAt.toISOString(),
      expires_at: new Date(meta.createdAt.getTime() + meta.lifetimeSeconds * 1000).toISOString(),
      warnings,
    },
  };
}

export async function createQuote(deps: QuoteDeps, call: QuoteCall, body: QuoteBody): Promise<Quote> {
  const products = await deps.catalog.index(call.ctx).catch((err: unknown) => {
    deps.quoteCounter.inc({ outcome: 'unavailable' });
    throw err;
  });
  const outcome = buildQuote(body, products, { id: newQuoteId(), createdAt: call.at, lifetimeSeconds: deps.quoteLifetimeSeconds });
  if (!outcome.ok) {
    deps.quoteCounter.inc({ outcome: 'invalid' });
    throw invalidQuote(outcome.problems);
  }
  // A Redis that does not answer becomes the kit's 503 with Retry-After; asking again is harmless.
  await deps.quotes.save(outcome.quote).catch((err: unknown) => {
    deps.quoteCounter.inc({ outcome: 'unavailable' });
    throw err;
  });
  deps.quoteCounter.inc({ outcome: 'created' });
  return outcome.quote;
}

/** A body that failed its schema: the 422 names the unknown products too, when the catalog answers. */
export async function invalidQuoteBody(deps: QuoteDeps, ctx: CallContext, raw: unknown, error: z.ZodError): Promise<AppError> {
  deps.quoteCounter.inc({ outcome: 'invalid' });
  const fields = toFieldProblems(error);
  const lines = raw && typeof raw === 'object' ? (raw as { lines?: unknown }).lines : undefined;
  const index = Array.isArray(lines) && lines.length > 0 ? await deps.catalog.index(ctx).catch(() => undefined) : undefined;
  if (index) {
    const reported = new Set(fields.map((f) => f.field));
    fields.push(...unknownProductsInRawBody(raw, index, 'lines').filter((p) => !reported.has(p.field)));
  }
  return invalidQuote(fields);
}

function invalidQuote(fields: FieldProblem[]): AppError {
  const problems = fields.length === 1 ? 'one problem' : `${fields.length} problems`;
  return appError('validation_failed', `The quote has ${problems}; see error.fields.`, { fields });
}

/** The answer to a quote id that is unknown or past its lifetime: both read the same, by design. */
export function quoteNotFound(id: string): AppError {
  return appError('quote_not_found', `No quote with id '${id}'; it does not exist or has expired.`);
}
