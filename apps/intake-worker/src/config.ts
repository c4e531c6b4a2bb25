import { isIP } from 'node:net';
import { LIMITS } from '@msa/contracts';
import { CommonEnv, RedisEnv, queuePrefixRule, replicaWaitEnv } from '@msa/service-kit';
import { z } from 'zod';
import { parseCidrList } from './logos/address-policy.js';

/** Development defaults; production refuses to start with them (and without SMTP_URL). */
const DEV_MAIL_FROM = 'Merch-Shop Anfragen <anfragen@merch-shop.example>';
const DEV_OPERATOR_EMAIL = 'team@merch-shop.example';

const MAILBOX = /^(?:[^<>\r\n]*<)?([^\s<>@]+@[^\s<>@]+)>?$/;

const QueuePrefix = z.string().min(1).default('{intake}').describe('BullMQ key prefix; a {hash tag} keeps the queue in one Cluster slot');

const positiveInt = (def: number) => z.coerce.number().int().min(1).default(def);

/**
 * INTERNAL_AUTH_SECRET opens the address and code that identity seals into
 * each job of the `mail` queue; like every service, it has no default.
 */
export const IntakeWorkerEnv = CommonEnv.extend(RedisEnv.shape)
  .extend({
    WORKER_PORT: z.coerce.number().int().min(0).max(65_535).default(8086).describe('Port of the admin server: health, metrics, queue UI (0 = any free port)'),
    QUEUE_PREFIX: QueuePrefix,
    INTAKE_CONCURRENCY: positiveInt(10).describe('Shop requests (intake jobs) one process works on at the same time'),
    MAIL_CONCURRENCY: positiveInt(2).describe('Jobs of the mail queue (consent code e-mails) one process works on at the same time'),
    INTAKE_LOCK_DURATION_MS: positiveInt(30_000).describe(
      'BullMQ lock of an active job; a job whose worker died is taken up again after this long',
    ),
    INTAKE_STALLED_INTERVAL_MS: positiveInt(30_000).describe('How often this worker looks for jobs whose worker died'),
    INTAKE_REDIS_BACKOFF_MS: positiveInt(1_000).describe(
      'While Redis fails: first wait before the worker reconnects or checks again whether Redis works; each failed try doubles it',
    ),
    INTAKE_REDIS_BACKOFF_MAX_MS: positiveInt(30_000).describe('While Redis fails: the longest wait between two tries'),
    SMTP_URL: z
      .url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' })
      .optional()
      .describe('SMTP server (smtp://user:pass@host:587, smtps://… for implicit TLS); required in production; unset elsewhere: .eml files in OUTBOX_DIR'),
    SMTP_POOL_SIZE: positiveInt(5).describe('Parallel SMTP connections kept open'),
    OUTBOX_DIR: z.string().min(1).default('.data/outbox').describe('Directory for .eml files when SMTP_URL is unset'),
    MAIL_FROM: z
      .string()
      .regex(MAILBOX, 'must be an address or "Name <address>"')
      .default(DEV_MAIL_FROM)
      .describe('Sender of every e-mail ("Name <address>"); its domain names the Message-IDs; production refuses the default'),
    OPERATOR_EMAIL: z
      .email()
      .default(DEV_OPERATOR_EMAIL)
      .describe('Address of the operator team, which receives every shop request; production refuses the default'),
    LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: z
      .stringbool()
      .default(false)
      .describe('Allow logo downloads from private, loopback and link-local addresses (tests only)'),
    LOGO_FETCH_ALLOW_ADDRESSES: z
      .string()
      .default('')
      .refine(isCidrList, 'must be a comma-separated list of IP addresses or CIDRs')
      .describe('Comma-separated IPs or CIDRs allowed although not public (an internal logo host); empty: none'),
    LOGO_MAX_BYTES: positiveInt(LIMITS.logoMaxBytes).describe('Largest logo accepted; the download stops past it'),
    LOGO_TOTAL_MAX_BYTES: positiveInt(12 * 1024 * 1024).describe('Logo bytes attached to one operator e-mail at most'),
    LOGO_TIMEOUT_MS: positiveInt(10_000).describe('Time limit of one logo download, redirects included'),
    LOGO_JOB_BUDGET_MS: positiveInt(30_000).describe('Time limit of all logo downloads of one shop request together; logos not loaded by then become notes'),
    LOGO_PARALLEL_DOWNLOADS: positiveInt(4).describe('Logos of one shop request downloaded at the same time'),
    CONFIRMATION_MAILS_PER_ADDRESS_PER_DAY: positiveInt(3).describe(
      'Confirmation e-mails to one contact address per UTC day, whatever credential made the requests; further requests reach the operator without one',
    ),
    ADMIN_USER: z.string().min(1).optional().describe('Basic-auth user of the queue UI at /admin/queues; unset: UI off'),
    ADMIN_PASSWORD: z.string().min(1).optional().describe('Basic-auth password of the queue UI'),
    QUEUE_UI_HOST: z
      .string()
      .refine((v) => isIP(v) !== 0 || v === 'localhost', 'must be an IP address or localhost')
      .default('127.0.0.1')
      .describe('Interface the queue UI listens on: loopback, reached with kubectl port-forward; never the pod network'),
    QUEUE_UI_PORT: z.coerce.number().int().min(0).max(65535).default(8087).describe('Port of the queue UI, apart from the admin port (0 = any free port)'),
  })
  .extend(replicaWaitEnv({ writes: "a delivery's list entry", before: 'its job completes', shortfall: 'the job is retried', maxTimeoutMs: 10_000 }).shape)
  .superRefine((env, ctx) => {
    // The development defaults would send production mail nowhere.
    if (env.NODE_ENV === 'production') {
      if (!env.SMTP_URL) ctx.addIssue({ code: 'custom', path: ['SMTP_URL'], message: 'required when NODE_ENV=production' });
      if (env.MAIL_FROM === DEV_MAIL_FROM) ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: 'required when NODE_ENV=production' });
      if (env.OPERATOR_EMAIL === DEV_OPERATOR_EMAIL) {
        ctx.addIssue({ code: 'custom', path: ['OPERATOR_EMAIL'], message: 'required when NODE_ENV=production' });
      }
    }
    if (Boolean(env.ADMIN_USER) !== Boolean(env.ADMIN_PASSWORD)) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_PASSWORD'], message: 'set ADMIN_USER and ADMIN_PASSWORD together' });
    }
    queuePrefixRule(env, ctx);
  });
export type IntakeWorkerConfig = z.infer<typeof IntakeWorkerEnv>;

/** The bare address of "Name <address>" or of a bare address. */
export function mailboxAddress(mailbox: string): string {
  return MAILBOX.exec(mailbox.trim())?.[1] ?? mailbox.trim();
}

/** What the operator commands (`list`, `retry-failed`) read: only where the data is. */
export const IntakeCliEnv = RedisEnv.extend({ QUEUE_PREFIX: QueuePrefix }).superRefine(queuePrefixRule);
export type IntakeCliConfig = z.infer<typeof IntakeCliEnv>;

function isCidrList(value: string): boolean {
  try {
    parseCidrList(value);
    return true;
  } catch {
    return false;
  }
}
