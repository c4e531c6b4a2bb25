// Making a quote, from a parsed body to a stored Quote: resolve each line's
// product against the catalog, price it (quote-pricing.ts), collect the
// warnings a shop request would give, and answer the quote already stored
// with the same content (quote-digest.ts), or else count the quote on the
// caller's daily quotas and store it for its lifetime.
// No express: the route passes in what it knows about the call, and counts
// what became of the quote from what this returns or throws.
import {
  CURRENCY,
  shopTypeOf,
  type CallContext,
  type FieldProblem,
  type Quote,
  type QuoteBody,
  type QuoteLine,
} from '@msa/contracts';
import { appError, limitKeyOfAddress, type AppError, type Logger } from '@msa/service-kit';
import { nextUtcMidnight, rateLimitedError, withReservation, type LimitState } from '@msa/service-kit/limits';
import type { z } from 'zod';
import type { ProductCatalog } from '../catalog/product-catalog.js';
import { quoteCountedQuotas, type QuoteQuotas } from '../store/quote-quotas.js';
import type { QuoteStore } from '../store/quote-store.js';
import { refundAll, reserveAll } from '../store/reserve-all.js';
import type { ProductIndex } from './product-index.js';
import { quoteDigest } from './quote-digest.js';
import { priceLines, toEuros, unitPriceOf, type UnitPrice } from './quote-pricing.js';
import { invalidBody, schemaProblems } from './invalid-body.js';
import { newId } from './new-id.js';
import { checkRequestedLine, unknownProduct, type ListedColorsGiven } from './requested-line.js';
import { StoredRecordTooLarge } from './stored-size.js';

export interface QuoteDeps {
  quotes: QuoteStore;
  /** QUOTES_PER_PRINCIPAL_PER_DAY and QUOTES_PER_ADDRESS_PER_DAY. */
  quoteQuotas: QuoteQuotas;
  /** IPV6_LIMIT_PREFIX: an IPv6 caller's address counts by this prefix. */
  ipv6LimitPrefix?: number | undefined;
  catalog: ProductCatalog;
  /** QUOTE_LIFETIME_SECONDS: how long a quote is stored and can be named. */
  quoteLifetimeSeconds: number;
}

export interface QuoteCall {
  ctx: CallContext;
  at: Date;
  log: Logger;
}

/**
 * A quote and whether it is one already stored. Its 201 shows no daily quota:
 * the gateway's per-minute RateLimit is what it carries, and an upstream
 * header would replace it. A refusal carries its quota on its 429.
 */
export interface MadeQuote {
  quote: Quote;
  reused: boolean;
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

export async function createQuote(deps: QuoteDeps, call: QuoteCall, body: QuoteBody): Promise<MadeQuote> {
  const products = await deps.catalog.index(call.ctx);
  const outcome = buildQuote(body, products, { id: newId('quo'), createdAt: call.at, lifetimeSeconds: deps.quoteLifetimeSeconds });
  if (!outcome.ok) throw invalidQuote(outcome.problems);
  const { quote } = outcome;

  // The same quote already stored is the answer: nothing new is stored, so nothing is counted.
  // A Redis that does not answer becomes the kit's 503 with Retry-After; asking again is harmless.
  const digest = quoteDigest(quote, call.ctx.sandbox);
  const stored = await deps.quotes.findByDigest(digest);
  if (stored) return { quote: stored, reused: true };

  const counted = quoteCountedQuotas(deps.quoteQuotas, {
    principalId: call.ctx.principal?.id,
    address: limitKeyOfAddress(call.ctx.ip, { ipv6Prefix: deps.ipv6LimitPrefix }),
  });
  const reserved = await reserveAll(counted, call.at, quote.quote_id);
  if (!reserved.allowed) throw quoteLimitError(deps.quoteQuotas, reserved.refused.state, call.at);

  // A quote not stored gives its units back. A process that dies in between
  // keeps them counted: the day is then one quote shorter, never longer.
  await withReservation(
    { refund: () => refundAll(reserved.reservations) },
    () => deps.quotes.save(quote, digest),
    (err) => call.log.warn({ err }, 'quote quota refund failed'),
  ).catch((err: unknown) => {
    if (err instanceof StoredRecordTooLarge) {
      throw invalidQuote([{ field: '(body)', message: `the quote would be stored as ${err.bytes} bytes, more than the ${err.limit} a quote may take; name fewer lines or colors` }]);
    }
    throw err;
  });
  return { quote, reused: false };
}

function quoteLimitError(quotas: QuoteQuotas, state: LimitState, at: Date): AppError {
  const whose = state.policy === quotas.perAddress.policy ? 'from this address, with or without credentials' : 'for these credentials';
  return rateLimitedError(
    state,
    `Daily limit reached: ${state.limit} new quotes per day ${whose}. The day resets at UTC midnight (${nextUtcMidnight(at).toISOString()}).`,
    'Wait the seconds in `Retry-After`; the count starts again at UTC midnight. Quotes already made stay readable with GET /v1/quotes/{id}, and asking for one of them again answers it without counting.',
    { showQuota: true },
  );
}

/** A body that failed its schema: the 422 names the unknown products too, when the catalog answers. */
export async function invalidQuoteBody(deps: QuoteDeps, ctx: CallContext, raw: unknown, error: z.ZodError): Promise<AppError> {
  return invalidQuote(await schemaProblems(deps.catalog, ctx, raw, error, 'lines'));
}

function invalidQuote(fields: FieldProblem[]): AppError {
  return invalidBody('quote', fields);
}

/** The answer to a quote id that is unknown or past its lifetime: both read the same, by design. */
export function quoteNotFound(id: string): AppError {
  return appError('quote_not_found', `No quote with id '${id}'; it does not exist or has expired.`);
}
