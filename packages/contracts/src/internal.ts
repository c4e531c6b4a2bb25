import { Principal } from './identity.js';
import { z } from './zod.js';

export const SERVICE_NAMES = ['gateway', 'catalog', 'shops', 'requests', 'identity', 'mcp', 'intake-worker'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const INTERNAL_AUTH_HEADER = 'x-internal-auth';

/**
 * What a service knows about a call: who calls (`principal`, null for an
 * anonymous caller), whether it is on the sandbox, the client's address (it
 * feeds per-address quotas), and the request it belongs to. The first three
 * are signed in `X-Internal-Auth` ({@link SignedCallContext}); the request id
 * and the trace travel once, in `X-Request-Id` and `traceparent`.
 */
export const CallContext = z.object({
  principal: Principal.nullable(),
  sandbox: z.boolean(),
  ip: z.string(),
  request_id: z.string(),
  traceparent: z.string().optional(),
});
export type CallContext = z.infer<typeof CallContext>;

/** The version of the signed context this release writes. */
export const INTERNAL_CONTEXT_VERSION = 2;

/**
 * The `ctx` claim of `X-Internal-Auth`: what stays the same across one
 * principal's requests from one address, so one token serves them all for
 * its lifetime and a service verifies it once.
 *
 * Version 1 (no `version`) also carried `request_id` and `traceparent`; it is
 * still accepted, and those fields are ignored in favour of the headers, as
 * are fields this release does not know. A later version is refused: it may
 * mean something this release cannot check.
 */
export const SignedCallContext = z.object({
  version: z.literal(INTERNAL_CONTEXT_VERSION).optional(),
  principal: Principal.nullable(),
  sandbox: z.boolean(),
  ip: z.string(),
});
export type SignedCallContext = z.infer<typeof SignedCallContext>;

/** Every header the gateway uses internally; it strips them from inbound requests. */
export const INTERNAL_HEADERS = [INTERNAL_AUTH_HEADER, 'x-msa-sandbox'] as const;
