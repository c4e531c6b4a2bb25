// The failed-auth budget: wrong credentials count against the client's
// address (30 a minute). Past the budget the answer is 429, decided before
// identity is asked, so guessing keys costs identity nothing. Credentials the
// gateway can check alone still pass (an access token signed with a key it
// holds, an API key it resolved recently), so a valid caller behind a shared
// address is not punished for others' failures there. Successes never count.
import type { Metrics } from '@msa/service-kit';
import { rateLimitedError, setRateLimitHeaders, type ConsumeResult, type FailureLimiter } from '@msa/service-kit/limits';
import { CredentialRefused } from '../auth/challenges.js';
import type { Handoff, Next, Stage, View } from './exchange.js';
import type { FailOpen } from './fail-open.js';

/** What failed-auth-budget reads of the exchange and writes for the stages after it. */
export const FAILED_AUTH_BUDGET_HANDOFF = { reads: ['route'], writes: ['mayAskIdentity'] } as const satisfies Handoff;

export interface FailedAuthBudgetOptions {
  limiter: FailureLimiter;
  failOpen: FailOpen;
  rejections: ReturnType<Metrics['counter']>;
}

/**
 * Wraps authentication: authenticate asks `x.mayAskIdentity()` before it
 * asks identity, which reads the budget once; a CredentialRefused from it is
 * counted (401 showing the budget counting down) or, past the budget, turned
 * into 429. Credentials settled without identity never read the budget.
 */
export function createFailedAuthBudgetStage({ limiter, failOpen, rejections }: FailedAuthBudgetOptions): Stage<View<typeof FAILED_AUTH_BUDGET_HANDOFF>> {
  /** Budget state of one request: read once, and only when identity is about to be asked or a credential failed. */
  function budgetOf(x: View<typeof FAILED_AUTH_BUDGET_HANDOFF>) {
    // Worked out only once the budget is read: a key the gateway knows never needs it.
    const address = () => `ip:${x.addressKey}`;
    let budget: Promise<ConsumeResult | undefined> | undefined;
    return { address, read: () => (budget ??= failOpen(x.req, () => limiter.check(address()))) };
  }

  async function refused(x: View<typeof FAILED_AUTH_BUDGET_HANDOFF>, budget: ReturnType<typeof budgetOf>, err: unknown): Promise<never> {
    if (!(err instanceof CredentialRefused)) throw err;
    const state = await budget.read();
    if (state && !state.allowed) {
      setRateLimitHeaders(x.res, state.state);
      rejections.inc({ policy: limiter.policy });
      throw rateLimitedError(
        state.state,
        `More than ${limiter.points} failed authentications in a minute from this address.`,
        'Check the credential you send (Authorization: Bearer <API_KEY or access token>), then wait for Retry-After seconds.',
      );
    }
    const after = await failOpen(x.req, () => limiter.fail(budget.address()));
    if (after) setRateLimitHeaders(x.res, after.state);
    throw err;
  }

  /** Runs the later stages and watches them for a CredentialRefused; when they finish in this tick, without a promise. */
  function guard(x: View<typeof FAILED_AUTH_BUDGET_HANDOFF>, next: Next<View<typeof FAILED_AUTH_BUDGET_HANDOFF>>): void | Promise<void> {
    const budget = budgetOf(x);
    x.mayAskIdentity = async () => {
      const state = await budget.read();
      return state === undefined || state.allowed;
    };
    let result: void | Promise<void>;
    try {
      result = next(x);
    } catch (err) {
      return refused(x, budget, err);
    }
    return result && result.catch((err: unknown) => refused(x, budget, err));
  }

  return (x, next) => {
    const { headers } = x.req;
    // Without a credential nothing can fail; no Redis round trip.
    if (x.route.auth === 'none' || (!headers.authorization && !headers['x-api-key'])) return next(x);
    return guard(x, next);
  };
}
