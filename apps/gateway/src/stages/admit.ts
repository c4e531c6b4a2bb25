// Admit: counts the request against its per-minute bucket, then checks what
// the operation needs, in that order, so every answer carries RateLimit
// headers, 401 and 403 included. A known principal counts against its own
// minute, everyone else against the address's (a handshake against its own
// bucket, see mcp-handshake.ts); a request authenticate could not settle
// counts as anonymous and is refused only after. A request costs `x.cost`
// units: one, or one per message of an MCP batch.
import type { Metrics } from '@msa/service-kit';
import { rateLimitedError, setRateLimitHeaders, type ConsumeResult } from '@msa/service-kit/limits';
import { credentialsRequired, insufficientScope } from '../auth/challenges.js';
import type { Bucket, GatewayLimiter, Handoff, Next, Stage, View } from './exchange.js';
import type { FailOpen } from './fail-open.js';

/** What admit reads of the exchange and writes for the stages after it. */
export const ADMIT_HANDOFF = { reads: ['route', 'resource', 'principal', 'refusal', 'bucket', 'cost'], writes: [] } as const satisfies Handoff;

export interface AdmitOptions {
  limiters: { principal: GatewayLimiter; anonymous: GatewayLimiter };
  failOpen: FailOpen;
  rejections: ReturnType<Metrics['counter']>;
}

export function createAdmitStage({ limiters, failOpen, rejections }: AdmitOptions): Stage<View<typeof ADMIT_HANDOFF>> {
  const perPrincipal: Bucket = {
    limiter: limiters.principal,
    refusal: () => ({ message: `More than ${limiters.principal.points} requests in a minute with these credentials.` }),
  };
  const perAddress: Bucket = {
    limiter: limiters.anonymous,
    refusal: () => ({
      message: `More than ${limiters.anonymous.points} requests in a minute from this address without credentials.`,
      hint: 'Wait for Retry-After seconds, or send credentials (POST /v1/keys) for 300 requests per minute.',
    }),
  };

  /** Counts the request; settled at once when the limiter can answer from this process (a lease), else a promise. */
  function count(x: View<typeof ADMIT_HANDOFF>, bucket: Bucket, key: string): void | Promise<void> {
    const now = bucket.limiter.consumeNow?.(key, x.cost);
    if (now) return settle(x, bucket, now);
    return failOpen(x.req, () => bucket.limiter.consume(key, x.cost)).then((result) => result && settle(x, bucket, result));
  }

  function settle(x: View<typeof ADMIT_HANDOFF>, bucket: Bucket, result: ConsumeResult): void {
    const { cost } = x;
    setRateLimitHeaders(x.res, result.state);
    if (result.allowed) return;
    rejections.inc({ policy: bucket.limiter.policy });
    const { message, hint } = bucket.refusal(x.principal);
    // A batch larger than what is left is refused whole, and spends nothing.
    if (cost > 1) throw rateLimitedError(result.state, `This batch of ${cost} messages counts as ${cost} requests; ${result.state.remaining} are left in this minute.`, hint ?? 'Send fewer messages per batch, or wait for Retry-After seconds.');
    throw rateLimitedError(result.state, message, hint);
  }

  /** What the operation needs, checked once the request is counted. */
  function check(x: View<typeof ADMIT_HANDOFF>, next: Next<View<typeof ADMIT_HANDOFF>>): void | Promise<void> {
    const { principal, route } = x;
    const needsCredentials = route.auth === 'required' && !principal;
    if (x.refusal) throw x.refusal;
    if (needsCredentials) throw credentialsRequired(x.resource, 'This operation needs credentials. Create free ones with POST /v1/keys.');
    if (route.scope && principal && !principal.scopes.includes(route.scope)) throw insufficientScope(x.resource, route.scope, route.operation);
    return next(x);
  }

  return (x, next) => {
    const { principal } = x;
    const counted = principal
      ? count(x, x.bucket ?? perPrincipal, `p:${principal.id}`)
      : // A request about to be refused counts as an anonymous one, whatever bucket it asked for.
        count(x, x.refusal !== null || (x.route.auth === 'required' && !principal) ? perAddress : (x.bucket ?? perAddress), `ip:${x.addressKey}`);
    return counted ? counted.then(() => check(x, next)) : check(x, next);
  };
}
