import { CommonEnv } from '@msa/service-kit';
import { z } from 'zod';

export const CatalogEnv = CommonEnv.extend({
  CATALOG_PORT: z.coerce.number().int().min(0).max(65_535).default(8081).describe('HTTP port (0 = any free port)'),
  CATALOG_ADMIN_PORT: z.coerce.number().int().min(0).max(65_535).default(9081).describe('Admin port: /metrics and /healthz, no internal auth; never routed by the gateway nor published (0 = any free port)'),
  CATALOG_SOURCE_URL: z
    .url()
    .optional()
    .describe('HTTP JSON feed that replaces data/products.json (an array of products, or `{ "products": [...] }`)'),
  CATALOG_REFRESH_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe('How long a loaded copy of the catalog is served before the source is asked again'),
  CATALOG_SOURCE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(5_000)
    .describe('Time limit of one request to CATALOG_SOURCE_URL'),
});
export type CatalogConfig = z.infer<typeof CatalogEnv>;
