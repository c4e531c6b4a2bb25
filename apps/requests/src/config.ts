import { LIMITS } from '@msa/contracts';
import { AddressLimitEnv, CommonEnv, IdempotencyLockSeconds, RedisEnv, queuePrefixRule, replicaWaitEnv } from '@msa/service-kit';
import { z } from 'zod';
import { DEFAULT_MAX_STORED_BYTES } from './domain/stored-size.js';
import { DEFAULT_LIVE_RETENTION_DAYS, SANDBOX_TTL_SECONDS } from './store/shop-request-store.js';

/** Stored quotes are a per-caller cost (docs/operations.md budgets a week of them), so no deployment keeps them longer. */
const MAX_QUOTE_LIFETIME_DAYS = 7;

/** A daily count that an operator may set to anything from 1 up; tests set small ones. */
const dailyCount = (fallback: number, description: string) => z.coerce.number().int().min(1).max(1_000_000).default(fallback).describe(description);

export const RequestsEnv = CommonEnv.extend(RedisEnv.shape).extend(AddressLimitEnv.shape).extend({
  REQUESTS_PORT: z.coerce.number().int().min(0).max(65_535).default(8083).describe('HTTP port (0 = any free port)'),
  REQUESTS_ADMIN_PORT: z.coerce.number().int().min(0).max(65_535).default(9083).describe('Admin port: /metrics and /healthz, no internal auth; never routed by the gateway nor published (0 = any free port)'),
  CATALOG_URL: z
    .url()
    .default('http://127.0.0.1:8081')
    .transform((u) => u.replace(/\/+$/, ''))
    .describe('Internal URL of the catalog service (products are resolved against it)'),
  QUEUE_PREFIX: z
    .string()
    .min(1)
    .default('{intake}')
    .describe('BullMQ key prefix of the intake queue; the intake worker and identity (its mail queue) need the same one; keep the `{…}` hash tag on Redis Cluster'),
  INTAKE_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8).describe('Attempts of one intake job before it stays in the failed set'),
  INTAKE_BACKOFF_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(2_000)
    .describe('First retry delay of an intake job; doubles with every attempt (exponential backoff)'),
  RECONCILE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(30_000)
    .describe('How often live shop requests that are stored but not yet queued are enqueued again'),
  RECONCILE_MIN_AGE_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(30_000)
    .describe('Pending shop requests younger than this are left to their own POST; older ones are queued, or refunded when never stored'),
  IDEMPOTENCY_LOCK_SECONDS: IdempotencyLockSeconds,
  QUOTE_LIFETIME_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_QUOTE_LIFETIME_DAYS * 86_400)
    .default(LIMITS.quoteLifetimeDays * 86_400)
    .describe(`How long a quote is stored and can be named by a shop request, at most ${MAX_QUOTE_LIFETIME_DAYS} days; the documents state the ${LIMITS.quoteLifetimeDays} days of the default`),
  QUOTES_PER_PRINCIPAL_PER_DAY: dailyCount(
    LIMITS.quotesPerPrincipalPerDay,
    'Quotes stored per UTC day for one principal; an identical quote answered from the store counts nothing',
  ),
  QUOTES_PER_ADDRESS_PER_DAY: dailyCount(
    LIMITS.quotesPerAddressPerDay,
    'Quotes stored per UTC day for one client address (IPv6 by IPV6_LIMIT_PREFIX), counting its anonymous calls and those of every principal it uses',
  ),
  SANDBOX_REQUESTS_PER_ADDRESS_PER_DAY: dailyCount(
    LIMITS.sandboxShopRequestsPerAddressPerDay,
    'Sandbox shop requests per UTC day from one client address (IPv6 by IPV6_LIMIT_PREFIX), across all its principals, keys and anonymous calls; each principal keeps its own daily quota besides',
  ),
  LIVE_REQUESTS_PER_DOMAIN_PER_DAY: dailyCount(
    LIMITS.liveShopRequestsPerDomainPerDay,
    "Live shop requests per UTC day whose contact e-mail (`organization.email`) is at one mail domain, across all principals; each principal keeps its own daily quota besides",
  ),
  SHOP_REQUEST_MAX_STORED_BYTES: z.coerce
    .number()
    .int()
    .min(16 * 1024)
    .default(DEFAULT_MAX_STORED_BYTES)
    .describe('Most bytes a stored shop request may take (body, result with its warnings, quote); a request over it is answered 422 and nothing is stored'),
  SHOP_REQUEST_LIVE_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3_650)
    .default(DEFAULT_LIVE_RETENTION_DAYS)
    .describe(`Days a live shop request is kept in Redis, then it expires (sandbox requests: ${SANDBOX_TTL_SECONDS / 86_400} days)`),
})
  .extend(
    replicaWaitEnv({
      writes: "a shop request's writes",
      before: 'it is answered 201',
      shortfall: '503 and a retry',
      // Below the API connection's 5 s command timeout, which would cut WAIT off first.
      maxTimeoutMs: 4_000,
    }).shape,
  )
  .superRefine(queuePrefixRule);
export type RequestsConfig = z.infer<typeof RequestsEnv>;
