// Builds the identity app against a real Redis with a key prefix of this
// test file's own, and speaks to it the way the gateway does.
import { randomBytes } from 'node:crypto';
import { MAIL_JOB_SEAL_PURPOSE, MAIL_QUEUE, type CallContext, type ConsentCodeMailJob } from '@msa/contracts';
import { createSealedText } from '@msa/service-kit';
import { Queue } from 'bullmq';
import { TEST_BASE_URL, TEST_INTERNAL_SECRET, buildPrincipal, createTestRedis, internalHeaders, testEcKeyPair, testLogger, type TestRedis } from '@msa/test-kit';
import type { Logger, Metrics } from '@msa/service-kit';
import type { Express } from 'express';
import supertest from 'supertest';
import { createApp } from '../src/app.js';
import type { ClientMetadataLimits } from '../src/oauth/clients/client-metadata-resolver.js';
import type { ConsentLimits } from '../src/oauth/consent-limits.js';
import { createTokenKeys, type TokenKeys } from '../src/domain/token-keys.js';
import { createConsentMailer } from '../src/oauth/queue/consent-mailer.js';

export { TEST_BASE_URL, buildPrincipal };

export interface IdentityHarness {
  /** Keeps cookies between requests, as one browser does. */
  api: supertest.Agent;
  app: Express;
  /** The `mail` queue the consent page's codes go to, on the test Redis. */
  mailQueue: Queue;
  /** The address and code of the latest consent mail on the queue. */
  lastConsentCode(): Promise<{ to: string; code: string } | null>;
  redis: TestRedis;
  tokenKeys: TokenKeys;
  /** The X-Internal-Auth header for a call with this context. */
  as(ctx?: Partial<CallContext>): Record<string, string>;
  close(): Promise<void>;
}

export interface IdentityOptions {
  logger?: Logger;
  clientMetadataAllowPrivate?: boolean;
  /** Caps on metadata document fetches; a 1 s timeout unless given. */
  clientMetadataLimits?: Partial<ClientMetadataLimits>;
  verifiedClientHosts?: string[];
  /** The consent page's counts of people and codes; the defaults unless given. */
  consentLimits?: Partial<ConsentLimits>;
  /** REFRESH_REUSE_GRACE_SECONDS; the default unless given. */
  refreshReuseGraceSeconds?: number;
  /** A registry to count into; none unless given. */
  metrics?: Metrics;
}

export async function startIdentity(name: string, opts: IdentityOptions = {}): Promise<IdentityHarness> {
  const redis = await createTestRedis(name);
  const tokenKeys = createTokenKeys({ privateKeyPem: testEcKeyPair().privateKeyPem, kid: 'test-key-1' });
  const queuePrefix = `{${redis.prefix}q}`;
  const consentMailer = createConsentMailer({
    connection: redis.redis,
    prefix: queuePrefix,
    internalAuthSecret: TEST_INTERNAL_SECRET,
    logger: opts.logger ?? testLogger('identity'),
  });
  // The tests' own view of the queue the mailer makes on its first e-mail.
  const mailQueue = new Queue(MAIL_QUEUE, { connection: redis.redis, prefix: queuePrefix, skipVersionCheck: true });
  const seal = createSealedText(TEST_INTERNAL_SECRET, MAIL_JOB_SEAL_PURPOSE);
  const app = createApp({
    consentMailer,
    clientMetadataAllowPrivate: opts.clientMetadataAllowPrivate ?? true,
    clientMetadataLimits: { fetchTimeoutMs: 1_000, ...opts.clientMetadataLimits },
    ...(opts.verifiedClientHosts ? { verifiedClientHosts: opts.verifiedClientHosts } : {}),
    ...(opts.consentLimits ? { consentLimits: opts.consentLimits } : {}),
    ...(opts.refreshReuseGraceSeconds !== undefined ? { refreshReuseGraceSeconds: opts.refreshReuseGraceSeconds } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    logger: opts.logger ?? testLogger('identity'),
    redis: redis.redis,
    keyPrefix: redis.prefix,
    publicBaseUrl: TEST_BASE_URL,
    internalAuthSecret: TEST_INTERNAL_SECRET,
    tokenKeys,
  });
  return {
    api: supertest.agent(app),
    app,
    mailQueue,
    async lastConsentCode() {
      const [job] = await mailQueue.getJobs(['waiting'], 0, 0, false);
      if (!job) return null;
      const opened = seal.open((job.data as ConsentCodeMailJob).sealed);
      return opened ? (JSON.parse(opened) as { to: string; code: string }) : null;
    },
    redis,
    tokenKeys,
    as: (ctx = {}) => internalHeaders('identity', ctx),
    async close() {
      await consentMailer.close();
      await mailQueue.close();
      await redis.cleanup();
    },
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
