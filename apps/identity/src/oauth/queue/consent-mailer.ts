// The producer side of the `mail` queue for the consent page's one-time code:
// the intake worker sends it through the same SMTP transport as every other
// e-mail. The address and the code travel sealed. BullMQ is loaded with the
// first e-mail (or the first erasure that looks at the queue), not at start:
// its 230 modules are a tenth of identity's memory at rest, for a code that
// most processes never send.
import { LIMITS, MAIL_JOB_SEAL_PURPOSE, MAIL_QUEUE, type ApprovalTarget, type ConsentCodeMailJob, type ConsentLanguage, type RequestTrace } from '@msa/contracts';
import { createSealedText, type Logger, type RedisClient } from '@msa/service-kit';
import { throttledLog } from '@msa/service-kit/redis';
import type { Queue } from 'bullmq';

export interface ConsentCodeMail {
  to: string;
  code: string;
  lang: ConsentLanguage;
  clientName: string;
  clientHost?: string | undefined;
  /** The name is only what the client declared; the e-mail says so. */
  clientNameSelfDeclared: boolean;
  /** Where the approval goes, named in the e-mail beside the client's name. */
  approvalTarget: ApprovalTarget;
  trace: RequestTrace;
}

export interface ConsentMailer {
  send(mail: ConsentCodeMail): Promise<void>;
  close(): Promise<void>;
}

export interface ConsentMailerOptions {
  connection: RedisClient;
  prefix: string;
  internalAuthSecret: string;
  logger: Logger;
}

/** The `mail` queue, made on first use. */
export type MailQueue = () => Promise<Queue>;

export function createConsentMailer({ connection, prefix, internalAuthSecret, logger }: ConsentMailerOptions): ConsentMailer & { queue: MailQueue } {
  const seal = createSealedText(internalAuthSecret, MAIL_JOB_SEAL_PURPOSE);
  let made: Promise<Queue> | undefined;
  let closed = false;
  const queue: MailQueue = () => {
    // Once closed, nothing makes a queue (and its connections) again.
    if (closed) return Promise.reject(new Error('the consent mailer is closed'));
    return (made ??= import('bullmq').then(({ Queue }) => {
      const q = new Queue<ConsentCodeMailJob>(MAIL_QUEUE, {
        connection,
        prefix,
        // An outage fails each add fast instead of waiting for Redis to come back.
        skipWaitingForReady: true,
        skipVersionCheck: true,
        defaultJobOptions: {
          attempts: 5,
          backoff: { type: 'exponential', delay: 1_000 },
          // The sealed code is of no use after its 10 minutes; nothing is kept longer than needed.
          removeOnComplete: true,
          removeOnFail: { age: 3_600 },
        },
      });
      const queueError = throttledLog(logger, 'warn', 'mail queue error');
      q.on('error', (err) => queueError({ err }));
      return q as Queue;
    }));
  };
  return {
    queue,
    async send(mail) {
      const job: ConsentCodeMailJob = {
        kind: 'consent_code',
        version: 1,
        sealed: seal.seal(JSON.stringify({ to: mail.to, code: mail.code })),
        lang: mail.lang,
        client_name: mail.clientName,
        ...(mail.clientHost ? { client_host: mail.clientHost } : {}),
        approval_target: mail.approvalTarget,
        client_name_self_declared: mail.clientNameSelfDeclared,
        expires_in_minutes: LIMITS.consentCodeLifetimeSeconds / 60,
        request_trace: mail.trace,
      };
      await (await queue()).add('consent_code', job);
    },
    async close() {
      closed = true;
      if (made) await (await made).close();
    },
  };
}
