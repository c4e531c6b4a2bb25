/*
 * The `mail` queue: consent code e-mails that identity adds (with its own
 * job options), sent by the same process and SMTP pool as the shop request
 * e-mails, to a real SMTP server. The worker logs at debug level here, so
 * every line it could write is checked for the address and the code.
 */
import { MAIL_QUEUE, type ConsentCodeMailJob } from '@msa/contracts';
import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import type { JobsOptions } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsentCodeJob, type MailJobOverrides } from './support/build-mail-job.js';
import { queueFor, startTestWorker, waitUntil, type TestQueue, type TestWorker } from './support/worker.js';

/** The options identity adds consent code jobs with, with a short backoff. */
const IDENTITY_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 50 },
  removeOnComplete: true,
  removeOnFail: { age: 3600 },
};
const REFUSED = 'refused.person@example.org';

let testRedis: TestRedis;
let smtp: SmtpSink;
let worker: TestWorker;
let mail: TestQueue;
/** Every address and code a test sealed: none may appear in a log line or a stored failure. */
const secrets: string[] = [];

beforeAll(async () => {
  testRedis = await createTestRedis('mail-queue');
  smtp = await startSmtpSink({
    // A server that quotes the refused recipient and the code in its answer, as real ones quote addresses.
    onRcpt: (address) => (address === REFUSED ? Object.assign(new Error(`<${address}> mailbox unavailable, code 777000`), { responseCode: 550 }) : undefined),
  });
  worker = await startTestWorker(testRedis, { SMTP_URL: smtp.url });
  mail = await queueFor(testRedis, worker.config.QUEUE_PREFIX, MAIL_QUEUE);
});

afterAll(async () => {
  await mail?.close();
  await worker?.close();
  await smtp?.close();
  await testRedis?.cleanup();
});

async function addConsentCode(job: ConsentCodeMailJob, opts: JobsOptions = {}): Promise<string> {
  const added = await mail.queue.add('consent_code', job, { ...IDENTITY_JOB_OPTIONS, ...opts });
  return added.id!;
}

function sealedFor(overrides: MailJobOverrides & { to: string; code: string }): ConsentCodeMailJob {
  secrets.push(overrides.to, overrides.code);
  return buildConsentCodeJob(overrides);
}

describe('the mail queue', () => {
  it.each([
    ['de', 'eva.de@example.org', '104729', 'Ihr Bestätigungscode: 104729', 'Die Anwendung „Claude“ (claude.ai)', '10 Minuten'],
    ['en', 'eva.en@example.org', '660271', 'Your confirmation code: 660271', 'The application “Claude” (claude.ai)', '10 minutes'],
  ] as const)('e-mails the consent code in %s to the sealed address and removes the job', async (lang, to, code, subject, client, validity) => {
    const jobId = await addConsentCode(sealedFor({ lang, to, code }));

    await waitUntil(() => smtp.to(to).length > 0, 'the consent code e-mail');

    const [received] = smtp.to(to);
    expect(smtp.to(to)).toHaveLength(1);
    expect(received!.rcptTo).toEqual([to]);
    expect(received!.mailFrom).toBe('anfragen@shop.example');
    const parsed = received!.parsed;
    expect(parsed.from?.value).toEqual([{ name: 'Merch-Shop Anfragen', address: 'anfragen@shop.example' }]);
    expect(parsed.to).toMatchObject({ value: [{ address: to }] });
    expect(parsed.subject).toBe(subject);
    expect(parsed.text).toContain(code);
    expect(parsed.text).toContain(client);
    expect(parsed.text).toContain(validity);
    expect(parsed.html).toContain(code);
    expect(parsed.messageId).toMatch(/^<mail-\d+-\d+\.consent-code@shop\.example>$/);
    await waitUntil(async () => (await mail.queue.getJobState(jobId)) === 'unknown', 'the completed job to be removed');
  });

  it('names where the approval goes and marks the name self-declared, for a client anyone registered as "Claude"', async () => {
    const to = 'phished@example.org';
    await addConsentCode(
      sealedFor({ to, code: '318204', clientName: 'Claude', clientHost: null, approvalTarget: { kind: 'host', value: 'evil.example' }, selfDeclared: true }),
    );

    await waitUntil(() => smtp.to(to).length > 0, 'the consent code e-mail');

    const parsed = smtp.to(to)[0]!.parsed;
    for (const part of [String(parsed.text), String(parsed.html)]) {
      expect(part).toContain('Die Freigabe geht an: evil.example');
      expect(part).toContain('„Claude“ (selbst angegeben, nicht geprüft)');
    }
  });

  it('delivers a client name carrying a URL with the URL neutralised', async () => {
    const to = 'linked@example.org';
    await addConsentCode(sealedFor({ to, code: '902117', clientName: 'Claude Support https://evil.example/verify?u=1', clientHost: null }));

    await waitUntil(() => smtp.to(to).length > 0, 'the consent code e-mail');

    const parsed = smtp.to(to)[0]!.parsed;
    expect(parsed.text).toContain('„Claude Support evil[.]example/verify?u 1“');
    // Our own privacy notice in the footer is the one link the mail may carry.
    const ours = new RegExp(`${worker.config.PUBLIC_BASE_URL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/privacy`, 'g');
    for (const part of [String(parsed.text), String(parsed.html)]) expect(part.replace(ours, '')).not.toMatch(/https?:|evil\.example/);
  });

  it('fails a job sealed with another secret at once, sends nothing and logs why without the address or the code', async () => {
    const sentBefore = smtp.messages.length;

    const jobId = await addConsentCode(sealedFor({ to: 'mallory@example.org', code: '555123', secret: 'not-the-workers-secret-but-32-characters' }));
    await mail.waitForState(jobId, 'failed');

    const job = await mail.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toContain('do not open with this INTERNAL_AUTH_SECRET');
    expect(smtp.messages.length).toBe(sentBefore);
    await waitUntil(() => worker.logs.some((l) => l.jobId === jobId && l.msg === 'mail job failed for good'), 'the error line');
    expect(worker.logs.find((l) => l.jobId === jobId && l.level === 'error')).toMatchObject({ queue: 'mail', kind: 'consent_code', attempts: 1, maxAttempts: 5 });
  });

  it('fails a job whose payload is not a consent code job without retrying it', async () => {
    const jobId = await addConsentCode({ kind: 'consent_code', version: 2 } as unknown as ConsentCodeMailJob);

    await mail.waitForState(jobId, 'failed');

    const job = await mail.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/^invalid mail job payload: version: /);
  });

  it('retries a recipient the SMTP server refuses, and stores and logs the refusal without the address or the code', async () => {
    const jobId = await addConsentCode(sealedFor({ to: REFUSED, code: '777000' }), { attempts: 2 });

    await mail.waitForState(jobId, 'failed');

    const job = await mail.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(2);
    expect(job?.failedReason).toContain('[address]');
    expect(job?.failedReason).toContain('[code]');
    expect(`${job?.failedReason} ${JSON.stringify(job?.stacktrace)}`).not.toMatch(/refused\.person|777000/i);
    await waitUntil(() => worker.logs.some((l) => l.jobId === jobId && l.level === 'error'), 'the error line');
    expect(worker.logs.some((l) => l.jobId === jobId && l.msg === 'mail attempt failed; retrying')).toBe(true);
  });

  it('counts sent and failed mail jobs in the metrics', async () => {
    const metrics = await (await fetch(`${worker.running.url}/metrics`)).text();

    expect(metrics).toMatch(/^mail_jobs_completed_total\{service="intake-worker"\} 4$/m);
    expect(metrics).toMatch(/^mail_jobs_failed_total\{service="intake-worker"\} 3$/m);
    expect(metrics).toMatch(/^mail_jobs_retried_total\{service="intake-worker"\} 1$/m);
    expect(metrics).toMatch(/^mail_queue_depth\{service="intake-worker"\} 0$/m);
  });

  it('never writes an address or a code to the log, at debug level', () => {
    const logged = JSON.stringify(worker.logs);

    expect(worker.logs.some((l) => l.msg === 'consent code e-mail sent')).toBe(true);
    for (const secret of secrets) expect(logged).not.toContain(secret);
  });
});
