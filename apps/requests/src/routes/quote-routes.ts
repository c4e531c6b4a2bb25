import { QuoteBody, QuoteIdParams, type Scope } from '@msa/contracts';
import { appError, methodNotAllowed, parseOr } from '@msa/service-kit';
import { setRateLimitHeaders, type LimitState } from '@msa/service-kit/limits';
import { Router, type RequestHandler } from 'express';
import { createQuote, invalidQuoteBody, quoteNotFound, type QuoteDeps } from '../domain/create-quote.js';

export interface QuoteRoutesDeps extends QuoteDeps {
  publicBaseUrl: string;
  now?: () => Date;
}

const SCOPE: Scope = 'catalog:read';

/**
 * Quotes are open like the catalog: no credentials is fine, and credentials
 * count for the gateway's higher limit. Credentials without the catalog
 * scope are refused, as the gateway does; checked again here so the service
 * stays safe when called by another route.
 */
const authorize: RequestHandler = (req, _res, next) => {
  const { principal } = req.ctx;
  if (principal && !principal.scopes.includes(SCOPE)) {
    throw appError('insufficient_scope', `Quotes need the scope ${SCOPE}.`, {
      hint: `Create credentials that include ${SCOPE} with POST /v1/keys, or send none: quotes are open.`,
    });
  }
  next();
};

export function quoteRoutes(deps: QuoteRoutesDeps): Router {
  const { publicBaseUrl } = deps;
  const now = deps.now ?? (() => new Date());
  const router = Router();

  const create: RequestHandler = async (req, res) => {
    const parsed = QuoteBody.safeParse(req.body);
    if (!parsed.success) throw await invalidQuoteBody(deps, req.ctx, req.body, parsed.error);

    const showQuota = (...states: LimitState[]) => setRateLimitHeaders(res, ...states);
    const quote = await createQuote(deps, { ctx: req.ctx, at: now(), log: req.log, showQuota }, parsed.data);

    res.setHeader('Location', `${publicBaseUrl}${req.ctx.sandbox ? '/sandbox' : ''}/v1/quotes/${quote.quote_id}`);
    res.status(201).json(quote);
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
  router.route('/').post(authorize, create).all(methodNotAllowed(env, ['POST']));
  router.route('/:id').get(authorize, read).all(methodNotAllowed(env, ['GET']));
  return router;
}
