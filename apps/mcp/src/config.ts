import { CommonEnv } from '@msa/service-kit';
import { z } from 'zod';
import { DEFAULT_TOOL_DEADLINE_MS } from './mcp/deps.js';

const serviceUrl = (port: number) => z.url().default(`http://127.0.0.1:${port}`);

/** A comma-separated list; blanks dropped. */
const commaList = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  );

export const McpEnv = CommonEnv.extend({
  MCP_PORT: z.coerce.number().int().min(0).max(65_535).default(8085).describe('HTTP port (0 = any free port)'),
  MCP_ADMIN_PORT: z.coerce.number().int().min(0).max(65_535).default(9085).describe('Admin port: /metrics and /healthz, no internal auth; never routed by the gateway nor published (0 = any free port)'),
  CATALOG_URL: serviceUrl(8081).describe('catalog service (products, pricing)'),
  SHOPS_URL: serviceUrl(8082).describe('shops service (public shops)'),
  REQUESTS_URL: serviceUrl(8083).describe('requests service (shop requests)'),
  MCP_ALLOWED_ORIGINS: z
    .string()
    .default('*')
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .describe(
      'Browser origins allowed to call /mcp: `*` (any origin but the opaque `null`; the gateway answers these paths with CORS `*`, and Host stays checked against DNS rebinding), or a comma-separated list (`https://app.example.org`, or `https://host:*` for any port) to which the origin of PUBLIC_BASE_URL, and localhost origins outside production, are added',
    ),
  MCP_ALLOWED_HOSTS: commaList.describe(
    'Extra host names /mcp answers for, comma-separated; the host of PUBLIC_BASE_URL is always allowed, localhost and 127.0.0.1 outside production',
  ),
  MCP_UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000).describe('Time limit of one call to another service'),
  TOOL_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(DEFAULT_TOOL_DEADLINE_MS)
    .describe(
      'A tool call answers within this, with a tool error (isError, upstream_timeout) when a service is slow, never a hang; below the 60 s hosts such as ChatGPT wait, and below the gateway\'s MCP_ANSWER_TIMEOUT_MS',
    ),
});
export type McpConfig = z.infer<typeof McpEnv>;
