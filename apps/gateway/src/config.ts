import { LIMITS } from '@msa/contracts';
import { DEFAULT_CONTENT_SIGNAL, LegalEnv, formatContentSignal, parseContentSignal } from '@msa/docs';
import { AddressLimitEnv, CommonEnv, DEFAULT_BODY_DEADLINE_MS, RedisEnv } from '@msa/service-kit';
import { z } from 'zod';
import { DEFAULT_CONNECTIONS_PER_ADDRESS } from './connection-cap.js';
import { DEFAULT_AUTHORIZE_IN_FLIGHT } from './stages/authorize-budget.js';
import { DEFAULT_IN_FLIGHT } from './stages/in-flight.js';

const serviceUrl = (port: number) => z.url().default(`http://127.0.0.1:${port}`);

// LegalEnv: the operator's details the privacy notice, terms and imprint are rendered from (see README, "Legal pages").
export const GatewayEnv = CommonEnv.extend(RedisEnv.shape).extend(AddressLimitEnv.shape).extend(LegalEnv.shape).extend({
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('Public HTTP port (0 = any free port)'),
  GATEWAY_ADMIN_PORT: z.coerce.number().int().min(0).max(65535).default(9080).describe('Admin port: /metrics, /dependencies and /healthz; never publish it (0 = any free port)'),
  CATALOG_URL: serviceUrl(8081).describe('catalog service'),
  SHOPS_URL: serviceUrl(8082).describe('shops service'),
  REQUESTS_URL: serviceUrl(8083).describe('requests service'),
  IDENTITY_URL: serviceUrl(8084).describe('identity service'),
  MCP_URL: serviceUrl(8085).describe('mcp service'),
  TRUST_PROXY: z
    .string()
    .default('false')
    .describe('Express "trust proxy": false, true, a hop count, or a comma list of trusted addresses/subnets; decides the client IP that anonymous and failed-auth limits count'),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('Upstream answer deadline before 504, counted once the request body is sent'),
  MCP_ANSWER_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(55_000)
    .describe(
      "The mcp service's answer deadline before 504, in place of UPSTREAM_TIMEOUT_MS; keep it above the mcp service's TOOL_DEADLINE_MS (50 s), so a slow tool call ends in the tool's own error, and below the 60 s hosts wait",
    ),
  CLIENT_BODY_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(10_000)
    .describe('A client that sends no part of its request body for this long gets 408 request_timeout and the connection is closed'),
  BODY_DEADLINE_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(DEFAULT_BODY_DEADLINE_MS)
    .describe('A request body must arrive in full within this, however steadily it trickles; past it 408 request_timeout and the connection is closed. The gateway reads every body before it takes a connection to a service'),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000).describe("Node's headersTimeout: the request line and headers must arrive within this, else 408 and the connection is closed"),
  KEEP_ALIVE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(65_000)
    .describe("Node's keepAliveTimeout: an idle keep-alive connection is closed after this; keep it above the load balancer's idle timeout (60 s on common ones)"),
  IN_FLIGHT_PER_PRINCIPAL: z.coerce.number().int().min(1).default(DEFAULT_IN_FLIGHT.perPrincipal).describe('Requests one principal may have open at once, per gateway replica; past it 429 with Retry-After'),
  IN_FLIGHT_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_IN_FLIGHT.perAddress)
    .describe('Requests one client address (IPv6: its prefix) may have open at once without credentials, per gateway replica; past it 429 with Retry-After'),
  AUTHORIZE_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_AUTHORIZE_IN_FLIGHT)
    .describe(
      'Requests to the authorization pages (/oauth/authorize, /oauth/consent/…, live and sandbox) in flight at once per gateway replica, whoever sends them, over a connection pool to identity of this size apart from the shared one; past it 429 with Retry-After. Identity may wait seconds there on a client metadata document, so token, keys and registration never queue behind them',
    ),
  CONNECTIONS_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .default(DEFAULT_CONNECTIONS_PER_ADDRESS)
    .describe(
      "Connections one peer address (IPv6: its IPV6_LIMIT_PREFIX) may hold open to a gateway replica at once; past it the new connection is answered 429 and closed. Counts the socket's address, not X-Forwarded-For: behind a proxy, keep it above the connections the proxy opens to one replica",
    ),
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(30_000).describe('How long a resolved API key is cached in process'),
  KEY_CACHE_STALE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(600_000)
    .describe('How long past KEY_CACHE_TTL_MS a key resolved before still passes while identity cannot answer (5xx, unreachable) or past the failed-auth budget; never after identity called it unknown'),
  RATE_LIMIT_REDIS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(500)
    .describe("Longest a rate-limit command waits for Redis before that request is counted in this replica's memory instead; while Redis is disconnected no command waits at all"),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(300).describe('Requests per minute per principal'),
  RATE_LIMIT_ANON_PER_MINUTE: z.coerce.number().int().min(1).default(60).describe('Requests per minute per client IP without credentials'),
  RATE_LIMIT_MCP_HANDSHAKE_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(LIMITS.mcpHandshakesPerMinute)
    .describe('MCP handshake messages (initialize, notifications/initialized, server/discover) per minute per principal or client IP, counted apart from the requests'),
  RATE_LIMIT_FAILED_AUTH_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(LIMITS.failedAuthPerIpPerMinute)
    .describe('Failed authentications per minute per client IP before 429'),
  CONTENT_SIGNAL: z
    .string()
    .default(DEFAULT_CONTENT_SIGNAL)
    .superRefine((value, ctx) => {
      try {
        parseContentSignal(value);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
      }
    })
    .transform((value) => formatContentSignal(parseContentSignal(value)))
    .describe('How the content may be used, as robots.txt states it (Content-Signal, and as IETF aipref Content-Usage): search, ai-input and ai-train, each yes or no'),
  MCP_REGISTRY_AUTH: z
    .string()
    .trim()
    .max(4096)
    .regex(/^v=MCPv1;\s*k=[a-z0-9]+;\s*p=[A-Za-z0-9+/=]+$/, 'the proof record mcp-publisher prints: v=MCPv1; k=<algorithm>; p=<public key>')
    .optional()
    .describe('The MCP Registry\'s domain proof (v=MCPv1; k=…; p=…), served at /.well-known/mcp-registry-auth; unset: 404 there'),
  OPENAI_APPS_CHALLENGE: z
    .string()
    .trim()
    .max(512)
    .regex(/^[\x21-\x7e]+$/, 'the verification token OpenAI\'s app submission shows, printable characters without spaces')
    .optional()
    .describe('The domain verification token of the ChatGPT apps directory (shown in OpenAI\'s app submission), served as text/plain at /.well-known/openai-apps-challenge; unset: 404 there'),
});
export type GatewayConfig = z.infer<typeof GatewayEnv>;

/** Express's `trust proxy` value from the variable's text. */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}
