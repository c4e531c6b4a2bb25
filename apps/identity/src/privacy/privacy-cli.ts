// The operator's side of the rights of access and erasure, for a request
// that arrives by e-mail or letter: `pnpm privacy:export <email>` and
// `pnpm privacy:erase <email>` run the same use cases as GET and DELETE
// /v1/me/data, against the deployment's Redis and requests service.
// `--scan` also reads every stored grant, credential and shop request, for
// data stored before the person index existed (slow on a large store).
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { MAIL_QUEUE, createRequestsClient } from '@msa/contracts';
import { CommonEnv, RedisEnv, createInternalSigner, queuePrefixRule, type RedisClient } from '@msa/service-kit';
import { Queue } from 'bullmq';
import { z } from 'zod';
import { createOAuthStore } from '../oauth/store/oauth-store.js';
import { createCredentialStore } from '../store/credential-store.js';
import { createConsentMailDrop } from './consent-mail-drop.js';
import { erasePersonalData, exportPersonalData, type ErasureSummary } from './personal-data.js';
import { createPrivacyStore } from './store/privacy-store.js';

export const PrivacyCliEnv = CommonEnv.pick({ INTERNAL_AUTH_SECRET: true })
  .extend(RedisEnv.shape)
  .extend({
    REQUESTS_URL: z.url().default('http://127.0.0.1:8083').describe('requests service'),
    QUEUE_PREFIX: z.string().min(1).default('{intake}').describe('BullMQ key prefix of the `mail` queue'),
  })
  .superRefine(queuePrefixRule);
export type PrivacyCliConfig = z.infer<typeof PrivacyCliEnv>;

export interface PrivacyCommand {
  action: 'export' | 'erase';
  email: string;
  scan: boolean;
}

/** Reads `export|erase <email> [--scan]`; null with a usage line when the arguments are not that. */
export function parsePrivacyArgs(argv: string[]): PrivacyCommand | { usage: string } {
  const usage = 'usage: privacy export|erase <email> [--scan]';
  // `pnpm run x -- args` passes the `--` through; it is not an argument here.
  const args = argv.filter((arg, i) => !(i === 0 && arg === '--'));
  let parsed;
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { scan: { type: 'boolean', default: false } } });
  } catch {
    return { usage };
  }
  const [action, email] = parsed.positionals;
  if ((action !== 'export' && action !== 'erase') || !email || !z.email().safeParse(email).success) return { usage };
  return { action, email, scan: parsed.values.scan ?? false };
}

/** Runs one command and returns what to print: the export, or what the erasure did. */
export async function runPrivacyCommand(
  config: Pick<PrivacyCliConfig, 'INTERNAL_AUTH_SECRET' | 'REDIS_KEY_PREFIX' | 'REQUESTS_URL' | 'QUEUE_PREFIX'>,
  redis: RedisClient,
  command: PrivacyCommand,
): Promise<unknown> {
  const mailQueue = new Queue(MAIL_QUEUE, { connection: redis, prefix: config.QUEUE_PREFIX, skipVersionCheck: true });
  try {
    const deps = {
      oauth: createOAuthStore(redis, config.REDIS_KEY_PREFIX),
      credentials: createCredentialStore(redis, config.REDIS_KEY_PREFIX),
      privacy: createPrivacyStore(redis, config.REDIS_KEY_PREFIX, config.INTERNAL_AUTH_SECRET),
      requests: createRequestsClient({ baseUrl: config.REQUESTS_URL, sign: createInternalSigner(config.INTERNAL_AUTH_SECRET), timeoutMs: 120_000 }),
      dropConsentMails: createConsentMailDrop(async () => mailQueue, config.INTERNAL_AUTH_SECRET),
    };
    const ctx = { principal: null, sandbox: false, ip: '127.0.0.1', request_id: `privacy-cli-${randomUUID()}` };
    const subject = { kind: 'person' as const, email: command.email };
    if (command.action === 'export') return await exportPersonalData(deps, subject, { ctx, scan: command.scan });
    const summary: ErasureSummary = await erasePersonalData(deps, subject, { ctx, scan: command.scan });
    return summary;
  } finally {
    await mailQueue.close();
  }
}
