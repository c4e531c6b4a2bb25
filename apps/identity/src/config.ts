import { createPrivateKey, createPublicKey } from 'node:crypto';
import { AddressLimitEnv, CommonEnv, IdempotencyLockSeconds, RedisEnv, queuePrefixRule } from '@msa/service-kit';
import { z } from 'zod';

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
  QUEUE_PREFIX: z.string().min(1).default('{intake}').describe('BullMQ key prefix of the `mail` queue (the consent codes), the same as the intake queue\'s; keep the `{…}` hash tag on Redis Cluster'),
  CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: z.stringbool().default(false).describe(
    'Allow Client ID Metadata Documents on loopback and private addresses, over http too (tests and local runs only)',
  ),
  TOKEN_VERIFY_KEYS: VerifyKeys.default([]).describe(
    'JSON array of `{kid, publicKeyPem}`: earlier signing keys still published in the JWKS while their tokens live',
  ),
}).superRefine(queuePrefixRule);
export type IdentityConfig = z.infer<typeof IdentityEnv>;
