import { createPrivateKey, createPublicKey } from 'node:crypto';
import { AddressLimitEnv, CommonEnv, IdempotencyLockSeconds, RedisEnv, queuePrefixRule } from '@msa/service-kit';
import { z } from 'zod';
import { METADATA_DEFAULTS } from './oauth/clients/client-metadata-resolver.js';
import { CONSENT_DEFAULTS } from './oauth/consent-limits.js';
import { DEFAULT_REFRESH_REUSE_GRACE_SECONDS } from './oauth/grants/token-grants.js';

/** .env files often hold a PEM on one line with literal `\n` sequences. */
export function normalizePem(value: string): string {
  return value.replace(/\\n/g, '\n').trim();
}

function isP256PrivateKey(pem: string): boolean {
  try {
    const key = createPrivateKey(pem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

function isP256PublicKey(pem: string): boolean {
  try {
    const key = createPublicKey(pem);
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

const Kid = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 characters of A-Z a-z 0-9 . _ -');

export const VerifyKey = z.object({
  kid: Kid,
  publicKeyPem: z.string().transform(normalizePem).refine(isP256PublicKey, 'must be an EC P-256 public key in PEM'),
});
export type VerifyKey = z.infer<typeof VerifyKey>;

const VerifyKeys = z
  .string()
  .transform((raw, ctx) => {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {kid, publicKeyPem}' });
      return z.NEVER;
    }
  })
  .pipe(z.array(VerifyKey));

export const IdentityEnv = CommonEnv.extend(RedisEnv.shape).extend(AddressLimitEnv.shape).extend({
  IDENTITY_PORT: z.coerce.number().int().min(0).max(65_535).default(8084).describe('HTTP port (0 = any free port)'),
  IDEMPOTENCY_LOCK_SECONDS: IdempotencyLockSeconds,
  IDENTITY_ADMIN_PORT: z.coerce.number().int().min(0).max(65_535).default(9084).describe('Admin port: /metrics and /healthz, no internal auth; never routed by the gateway nor published (0 = any free port)'),
  TOKEN_SIGNING_KEY: z
    .string()
    .transform(normalizePem)
    .refine(isP256PrivateKey, 'must be an EC P-256 private key in PEM (PKCS#8); literal \\n sequences are accepted')
    .describe('PEM (PKCS#8) of the EC P-256 private key that signs access tokens (ES256); literal \\n sequences are accepted, as .env files write them'),
  TOKEN_SIGNING_KID: Kid.describe('Key id (`kid`) of TOKEN_SIGNING_KEY, published in the JWKS (A-Z a-z 0-9 . _ -, up to 64)'),
  REQUESTS_URL: z
    .url()
    .default('http://127.0.0.1:8083')
    .describe('requests service: GET and DELETE /v1/me/data find and erase a person\'s shop requests there (internal HTTP)'),
  QUEUE_PREFIX: z.string().min(1).default('{intake}').describe('BullMQ key prefix of the `mail` queue (the consent codes), the same as the intake queue\'s; keep the `{…}` hash tag on Redis Cluster'),
  CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: z.stringbool().default(false).describe(
    'Allow Client ID Metadata Documents on loopback and private addresses, over http too (tests and local runs only)',
  ),
  CLIENT_METADATA_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(METADATA_DEFAULTS.fetchTimeoutMs).describe(
    'How long /oauth/authorize waits for a Client ID Metadata Document before it answers with an error page',
  ),
  CLIENT_METADATA_FETCHES_IN_FLIGHT: z.coerce.number().int().min(1).default(METADATA_DEFAULTS.fetchesInFlight).describe(
    'Client ID Metadata Documents this process fetches at once; past it /oauth/authorize answers 429 at once (each address also waits for one document at a time)',
  ),
  CLIENT_METADATA_URLS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).default(METADATA_DEFAULTS.urlsPerAddressPerHour).describe(
    'New Client ID Metadata Document URLs one client address (IPv6 by IPV6_LIMIT_PREFIX) may make identity fetch in an hour; each query string is a new URL; past it 429',
  ),
  CLIENT_METADATA_URLS_PER_HOST_PER_HOUR: z.coerce.number().int().min(1).default(METADATA_DEFAULTS.urlsPerHostPerHour).describe(
    'New Client ID Metadata Document URLs of one host fetched in an hour, whoever asks; past it 429 (hosts in OAUTH_VERIFIED_CLIENT_HOSTS are exempt)',
  ),
  CLIENT_METADATA_FAILURE_CACHE_SECONDS: z.coerce.number().int().min(1).max(3600).default(METADATA_DEFAULTS.failureCacheSeconds).describe(
    'How long a Client ID Metadata Document that could not be fetched or used is answered with the same error without fetching it again',
  ),
  OAUTH_VERIFIED_CLIENT_HOSTS: z
    .string()
    .default('')
    .transform((raw) => raw.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean))
    .describe(
      'Comma-separated host names whose Client ID Metadata Documents are verified clients: only their errors before consent are redirected to their redirect_uri (every other client gets an error page here), and their hosts skip the per-host URL cap',
    ),
  CONSENT_PRINCIPALS_PER_ADDRESS_PER_DAY: z.coerce
    .number()
    .int()
    .min(1)
    .default(CONSENT_DEFAULTS.principalsPerAddressPerDay)
    .describe(
      'New principals the consent page admits from one client address (IPv6 by IPV6_LIMIT_PREFIX) per UTC day: distinct people (mailboxes) it sends a code to, and every sandbox approval without an e-mail (each is a principal of its own); a person already counted that day goes on, a new one is refused before any e-mail',
    ),
  CONSENT_CODES_PER_ADDRESS_PER_DAY: z.coerce
    .number()
    .int()
    .min(1)
    .default(CONSENT_DEFAULTS.codesPerAddressPerDay)
    .describe('Consent code e-mails to one mailbox per UTC day (+tags, case and Gmail dots ignored), beside the 5 an hour'),
  CONSENT_WRONG_CODES_PER_ADDRESS_PER_DAY: z.coerce
    .number()
    .int()
    .min(1)
    .default(CONSENT_DEFAULTS.wrongCodesPerAddressPerDay)
    .describe('Wrong consent codes entered for one mailbox per UTC day before confirming it is locked until 00:00 UTC, across every consent page and code'),
  REFRESH_REUSE_GRACE_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(300)
    .default(DEFAULT_REFRESH_REUSE_GRACE_SECONDS)
    .describe(
      'Seconds a rotated refresh token, used again, answers with the same new refresh token (and a fresh access token) instead of revoking its grant, so hosts that refresh in parallel keep their sign-in; only the token rotated last has it; 0 turns it off; after it, a reuse revokes the grant',
    ),
  TOKEN_VERIFY_KEYS: VerifyKeys.default([]).describe(
    'JSON array of `{kid, publicKeyPem}`: earlier signing keys still published in the JWKS while their tokens live',
  ),
}).superRefine(queuePrefixRule);
export type IdentityConfig = z.infer<typeof IdentityEnv>;
