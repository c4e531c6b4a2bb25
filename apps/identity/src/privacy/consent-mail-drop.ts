// Drops consent-code e-mails to a mailbox that are still on the `mail`
// queue. Their address is sealed, so each waiting job is opened with the
// same key the worker opens it with; the queue holds only codes of the last
// minutes (a code lives 10), so reading it whole is cheap.
import { ConsentCodeSecret, MAIL_JOB_SEAL_PURPOSE, type ConsentCodeMailJob } from '@msa/contracts';
import { createSealedText, mailboxKey } from '@msa/service-kit';
import type { Queue } from 'bullmq';

/** `queue` gives the `mail` queue, made on first use (BullMQ loads with it). */
export function createConsentMailDrop(queue: () => Promise<Queue>, internalAuthSecret: string) {
  const seal = createSealedText(internalAuthSecret, MAIL_JOB_SEAL_PURPOSE);
  /** Removes every job not yet sent whose address is `email`'s mailbox; returns how many. */
  return async function dropConsentMails(email: string): Promise<number> {
    const mailbox = mailboxKey(email);
    let dropped = 0;
    const mail = await queue();
    const jobs = await mail.getJobs(['waiting', 'delayed', 'prioritized', 'failed'], 0, -1, true);
    for (const job of jobs) {
      const opened = seal.open(String((job.data as Partial<ConsentCodeMailJob>).sealed ?? ''));
      const secret = opened ? ConsentCodeSecret.safeParse(JSON.parse(opened)) : null;
      if (!secret?.success || mailboxKey(secret.data.to) !== mailbox) continue;
      // A job a worker took meanwhile cannot be removed: that code is sent, and it expires within minutes.
      if (job.id && (await mail.remove(job.id)) === 1) dropped += 1;
    }
    return dropped;
  };
}
export type DropConsentMails = ReturnType<typeof createConsentMailDrop>;
