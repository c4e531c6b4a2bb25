// The gateway's counters, and the rule every limit check follows: an
// unavailable limiter must not take the API down with it.
import type { Metrics } from '@msa/service-kit';
import type { Request } from 'express';

type Counter = ReturnType<Metrics['counter']>;

export interface GatewayCounters {
  rejections: Counter;
  upstreamErrors: Counter;
  limiterErrors: Counter;
}

export function createGatewayCounters(metrics: Metrics): GatewayCounters {
  return {
    rejections: metrics.counter('gateway_rate_limit_rejections_total', 'Requests refused by a rate limit', ['policy']),
    upstreamErrors: metrics.counter('gateway_upstream_errors_total', 'Upstream failures by service and kind', ['service', 'kind']),
    limiterErrors: metrics.counter('gateway_rate_limiter_errors_total', 'Rate-limit checks skipped because Redis failed'),
  };
}

export type FailOpen = <T>(req: Request, call: () => Promise<T>) => Promise<T | undefined>;

/**
 * Runs a limiter call; when the limiter's Redis fails, the request passes
 * unlimited (undefined), the skip is counted, and a warning is logged at
 * most every 10 s.
 */
export function createFailOpen(limiterErrors: Counter): FailOpen {
  let lastWarning = 0;
  return async (req, call) => {
    try {
      return await call();
    } catch (err) {
      limiterErrors.inc();
      if (Date.now() - lastWarning > 10_000) {
        lastWarning = Date.now();
        req.log.warn({ err }, 'rate limiter unavailable; requests pass unlimited');
      }
      return undefined;
    }
  };
}
