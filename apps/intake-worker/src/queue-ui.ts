/*
 * The bull-board UI of the `intake` queue. Loaded only when the operator
 * configured credentials for it, so a worker without a UI does not carry
 * its code. The contacts of the requests it shows are masked: an operator
 * retrying a job needs the request id and the error, not the person's
 * address and phone number (the operator e-mail has them), nor a full
 * address in a failure reason.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Job, Queue } from 'bullmq';
import type { Router } from 'express';
import { scrubAddresses } from './without-addresses.js';

/**
 * Failure reasons and stack traces scrubbed as the worker scrubs them before
 * it stores them: jobs that failed under an earlier version may still carry
 * an SMTP server's quote of the recipient.
 * bull-board has no formatter for these fields, so the jobs it reads are
 * masked in memory (nothing is written back).
 */
class MaskedFailuresAdapter extends BullMQAdapter {
  override async getJob(id: string): Promise<Job | undefined> {
    const job = await super.getJob(id);
    return job && maskFailure(job);
  }

  override async getJobs(...args: Parameters<BullMQAdapter['getJobs']>): Promise<Job[]> {
    return (await super.getJobs(...args)).map(maskFailure);
  }
}

function maskFailure(job: Job): Job {
  if (job.failedReason) job.failedReason = scrubAddresses(job.failedReason);
  if (Array.isArray(job.stacktrace)) job.stacktrace = job.stacktrace.map((trace) => (typeof trace === 'string' ? scrubAddresses(trace) : trace));
  return job;
}

export function createQueueUi(queue: Queue, basePath: string): Router {
  const serverAdapter = new ExpressAdapter().setBasePath(basePath);
  const adapter = new MaskedFailuresAdapter(queue, { allowRetries: true });
  adapter.setFormatter('data', maskContacts);
  createBullBoard({ queues: [adapter], serverAdapter });
  return serverAdapter.getRouter() as Router;
}

const EMAIL = /[^\s@<>"',;:()[\]]+@([^\s@<>"',;:()[\]]+\.[^\s@<>"',;:()[\]]+)/g;

/** `e…@example.org`: the domain says which organisation, the mailbox stays private. */
export function maskEmail(text: string): string {
  return text.replace(EMAIL, (whole, domain: string) => `${whole.charAt(0)}…@${domain}`);
}

/** `…67`: enough to tell two numbers apart on the phone with the operator. */
function maskPhone(text: string): string {
  const digits = text.replace(/\D/g, '');
  return digits.length > 2 ? `…${digits.slice(-2)}` : '…';
}

/** `E. M.`: initials only. */
function maskName(text: string): string {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map((part) => `${[...part][0]}.`)
    .join(' ');
}

const MASKS: Record<string, (text: string) => string> = { email: maskEmail, phone: maskPhone, contact_name: maskName };

/** A job's data with every contact name, e-mail address and phone number masked, wherever it sits. */
export function maskContacts(data: unknown, key?: string): unknown {
  if (typeof data === 'string') return (key && MASKS[key] ? MASKS[key] : maskEmail)(data);
  if (Array.isArray(data)) return data.map((item) => maskContacts(item));
  if (data && typeof data === 'object') {
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, maskContacts(v, k)]));
  }
  return data;
}
