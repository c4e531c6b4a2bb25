import { Principal } from './identity.js';
import { z } from './zod.js';

export const SERVICE_NAMES = ['gateway', 'catalog', 'shops', 'requests', 'identity', 'mcp', 'intake-worker'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const INTERNAL_AUTH_HEADER = 'x-internal-auth';

/**
 * What the gateway tells a service about the call, signed as the
 * `X-Internal-Auth` JWT. `principal` is null for an anonymous caller.
 */
export const CallContext = z.object({
  principal: Principal.nullable(),
  sandbox: z.boolean(),
  ip: z.string(),
  request_id: z.string(),
  traceparent: z.string().optional(),
});
export type CallContext = z.infer<typeof CallContext>;

/** Every header the gateway uses internally; it strips them from inbound requests. */
export const INTERNAL_HEADERS = [INTERNAL_AUTH_HEADER, 'x-msa-sandbox'] as const;
