import { CommonEnv } from '@msa/service-kit';
import { z } from 'zod';

export const ShopsEnv = CommonEnv.extend({
  SHOPS_PORT: z.coerce.number().int().min(0).max(65_535).default(8082).describe('HTTP port (0 = any free port)'),
  SHOPS_ADMIN_PORT: z.coerce.number().int().min(0).max(65_535).default(9082).describe('Admin port: /metrics and /healthz, no internal auth; never routed by the gateway nor published (0 = any free port)'),
  SHOPS_SOURCE_URL: z
    .url()
    .optional()
    .describe('HTTP JSON feed that replaces data/shops.json (an array of shops, or `{ "shops": [...] }`)'),
  SHOPS_REFRESH_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe('How long a loaded copy of the shop list is served before the source is asked again'),
  SHOPS_SOURCE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(5_000)
    .describe('Time limit of one request to SHOPS_SOURCE_URL'),
});
export type ShopsConfig = z.infer<typeof ShopsEnv>;
