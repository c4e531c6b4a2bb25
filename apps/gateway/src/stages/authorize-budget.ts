// Authorize budget: how many requests to the authorization pages
// (/oauth/authorize, /oauth/consent/…, and their /sandbox forms) this
// gateway process has in flight at once, whoever sends them. Identity may
// wait seconds there on a client's metadata document, which any blackholed
// address can serve; so these routes go to identity over a pool of their own
// (the route table's `authorize` pool) no larger than this budget, and past
// it the answer is 429 with Retry-After at once instead of a wait. The
// token, keys and registration endpoints keep the shared pool and never
// queue behind them. A slot is given back when the answer finishes or the
// connection closes, whichever comes first.
import { appError, type Metrics } from '@msa/service-kit';
import type { Handoff, Next, Stage, View } from './exchange.js';

/** What authorize-budget reads of the exchange and writes for the stages after it. */
export const AUTHORIZE_BUDGET_HANDOFF = { reads: ['route'], writes: [] } as const satisfies Handoff;

export interface AuthorizeBudgetOptions {
  /** Requests to the authorization pages in flight at once. */
  limit: number;
  rejections: ReturnType<Metrics['counter']>;
}

/** The budget and its pool's size unless configured otherwise (AUTHORIZE_IN_FLIGHT). */
export const DEFAULT_AUTHORIZE_IN_FLIGHT = 32;

export interface AuthorizeBudgetStage extends Stage<View<typeof AUTHORIZE_BUDGET_HANDOFF>> {
  /** Requests in flight under the budget, for tests. */
  inFlight(): number;
}

export function createAuthorizeBudgetStage({ limit, rejections }: AuthorizeBudgetOptions): AuthorizeBudgetStage {
  let open = 0;

  const stage = (x: View<typeof AUTHORIZE_BUDGET_HANDOFF>, next: Next<View<typeof AUTHORIZE_BUDGET_HANDOFF>>) => {
    if (x.route.pool !== 'authorize') return next(x);
    if (open >= limit) {
      rejections.inc({ policy: 'authorize-in-flight' });
      throw appError('rate_limited', `The sign-in pages are answering ${limit} requests at once already.`, {
        headers: { 'Retry-After': '1' },
        hint: 'Open the authorization link again in a moment.',
      });
    }
    open += 1;
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      open -= 1;
    };
    x.res.once('finish', release).once('close', release);
    return next(x);
  };
  return Object.assign(stage, { inFlight: () => open });
}
