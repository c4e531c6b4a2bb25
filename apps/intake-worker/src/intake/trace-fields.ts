import type { IntakeJob } from '@msa/contracts';
import { traceIdOf } from '@msa/service-kit';

/** `requestId` and `traceId` of the API call that created the shop request, for every log line about it. */
export function traceFields(data: Partial<IntakeJob> | undefined): { requestId?: string; traceId?: string } {
  const trace = data?.request_trace;
  const traceparent = typeof trace?.traceparent === 'string' ? trace.traceparent : undefined;
  return {
    requestId: typeof trace?.request_id === 'string' ? trace.request_id : undefined,
    traceId: traceparent ? traceIdOf(traceparent) : undefined,
  };
}
