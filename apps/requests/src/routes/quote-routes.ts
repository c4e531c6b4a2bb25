import { QuoteBody, QuoteIdParams, type Quote } from '@msa/contracts';
import { methodNotAllowed, operationOf, parseOr, requireScope, routePathOf, withOutcome, type OutcomeCounter } from '@msa/service-kit';
import { Router, type RequestHandler } from 'express';
import { createQuote, invalidQuoteBody, quoteNotFound, type QuoteDeps } from '../domain/create-quote.js';
import { createAccept } from './accept.js';

export interface QuoteRoutesDeps extends QuoteDeps {
  publicBaseUrl: string;
  /** Labels: outcome (created, reused: the same quote already stored, invalid, rate_limited, unavailable). */
  counters: { quotes: OutcomeCounter };
  now?: () => Date;
}

/**
 * Quotes are open like the catalog: no credentials is fine, and credentials
 * count for the gateway's higher limit. Credentials without the catalog
 * scope are refused, as the gateway does; checked again here so the service
 * stays safe when called by another route.
 */
export function quoteRoutes(deps: QuoteRoutesDeps): Router {
  const { publicBaseUrl } = deps;
  const now = deps.now ?? (() => new Date());
  const router = Router();
  const accept = createAccept<Quote>({ publicBaseUrl, readPath: operationOf('getQuote').path });

  const create: RequestHandler = async (req, res) => {
    const { quote } = await withOutcome(
      deps.counters.quotes,
      {},
      async () => {
        const parsed = QuoteBody.safeParse(req.body);
        if (!parsed.success) throw await invalidQuoteBody(deps, req.ctx, req.body, parsed.error);
        return createQuote(deps, { ctx: req.ctx, at: now(), log: req.log }, parsed.data);
      },
      (made) => (made.reused ? 'reused' : 'created'),
    );
    await accept.created(req, res, quote.quote_id, quote);
  };

  // Whoever holds the id may read the quote: it names products and prices,
  // nothing about a person, and the id is 64 random bits.
  const read: RequestHandler = async (req, res) => {
    const { id } = parseOr(QuoteIdParams, req.params, 'invalid_request', 'The quote id is malformed.');
    const quote = await deps.quotes.get(id);
    if (!quote) throw quoteNotFound(id);
    res.json(quote);
  };

  const env = { publicBaseUrl };
  router
    .route(routePathOf('createQuote'))
    .post(requireScope('createQuote'), ...accept.before, create)
    .all(methodNotAllowed(env, ['POST']));
  router.route(routePathOf('getQuote')).get(requireScope('getQuote'), read).all(methodNotAllowed(env, ['GET']));
  return router;
}
