// Builds the identity app against a real Redis with a key prefix of this
// test file's own, and speaks to it the way the gateway does.
import { randomBytes } from 'node:crypto';
import type { CallContext } from '@msa/contracts';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, buildPrincipal, createTestRedis, internalHeaders, testEcKeyPair, testLogger, type TestRedis } from '@msa/test-kit';
import type { Logger } from '@msa/service-kit';
import supertest from 'supertest';
import { createApp } from '../src/app.js';
import { createTokenKeys, type TokenKeys } from '../src/domain/token-keys.js';

export { TEST_BASE_URL, buildPrincipal };

export interface IdentityHarness {
  api: supertest.Agent;
  redis: TestRedis;
  tokenKeys: TokenKeys;
  /** The X-Internal-Auth header for a call with this context. */
  as(ctx?: Partial<CallContext>): Record<string, string>;
  close(): Promise<void>;
}

export async function startIdentity(name: string, opts: { logger?: Logger } = {}): Promise<IdentityHarness> {
  const redis = await createTestRedis(name);
  const tokenKeys = createTokenKeys({ privateKeyPem: testEcKeyPair().privateKeyPem, kid: 'test-key-1' });
  const app = createApp({
    logger: opts.logger ?? testLogger('identity'),
    redis: redis.redis,
    keyPrefix: redis.prefix,
    publicBaseUrl: TEST_BASE_URL,
    internalAuthSecret: TEST_INTERNAL_SECRET,
    tokenKeys,
  });
  return {
    api: supertest.agent(app),
    redis,
    tokenKeys,
    as: (ctx = {}) => internalHeaders('identity', ctx),
    close: () => redis.cleanup(),
  };
}

/** A client address of its own, so one test's creations never count against another's. */
export function freshIp(): string {
  const b = randomBytes(3);
  return `10.${b[0]}.${b[1]}.${b[2]}`;
}

export function buildKeyRequest(overrides: Record<string, unknown> = {}) {
  return { name: 'Test Agent', email: 'dev@example.org', ...overrides };
}

export function basicAuth(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}
