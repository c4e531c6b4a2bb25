import { MAIL_JOB_SEAL_PURPOSE } from '@msa/contracts';
import { createSealedText } from '@msa/service-kit';
import { testLogger } from '@msa/test-kit';
import type { Job } from 'bullmq';
import type { SendMailOptions } from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { buildConsentCodeJob } from '../../test/support/build-mail-job.js';
import type { MailKind } from '../mail/mail-settings.js';
import { runMailJob, withoutSecret, type MailJobDeps } from './run-mail-job.js';

const SECRET = 'a-worker-secret-of-at-least-32-characters';
const ADDED_AT = Date.parse('2030-05-01T12:00:00.000Z');
const settings = { from: 'Merch-Shop <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example', publicBaseUrl: 'https://api.shop.example' };

function setUp({ now = ADDED_AT, sendError }: { now?: number; sendError?: Error } = {}) {
  const sent: { kind: MailKind; id: string; message: SendMailOptions }[] = [];
  const deps: MailJobDeps = {
    mailer: {
      async send(kind, id, message) {
        if (sendError) throw sendError;
        sent.push({ kind, id, message });
      },
      close() {},
    },
    mail: settings,
    sealed: createSealedText(SECRET, MAIL_JOB_SEAL_PURPOSE),
    logger: testLogger(),
    now: () => now,
  };
  return { deps, sent };
}

function buildJob(data: unknown, id = '7'): Job {
  return { id, data, timestamp: ADDED_AT, attemptsMade: 0, opts: { attempts: 5 } } as unknown as Job;
}

describe('runMailJob', () => {
  it('opens the seal and sends the code to the sealed address, with a Message-ID of the job', async () => {
    const { deps, sent } = setUp();

    const outcome = await runMailJob(deps, buildJob(buildConsentCodeJob({ secret: SECRET, to: 'eva@tsv.example', code: '120034' })));

    expect(outcome).toEqual({ kind: 'consent_code' });
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: 'consent-code', id: `mail-7-${ADDED_AT}` });
    expect(sent[0]!.message).toMatchObject({
      to: { name: '', address: 'eva@tsv.example' },
      subject: 'Ihr Bestätigungscode: 120034',
      messageId: `<mail-7-${ADDED_AT}.consent-code@shop.example>`,
    });
  });

  it('fails for good, sending nothing, when the seal was made with another secret', async () => {
    const { deps, sent } = setUp();
    const job = buildJob(buildConsentCodeJob({ secret: 'another-secret-of-at-least-32-characters!' }));

    const failure = runMailJob(deps, job);

    await expect(failure).rejects.toMatchObject({ name: 'UnrecoverableError', message: expect.stringContaining('do not open') });
    expect(sent).toEqual([]);
  });

  it('fails for good when the seal holds something other than an address and a six-digit code, naming only the fields', async () => {
    const { deps, sent } = setUp();
    const job = buildJob(buildConsentCodeJob({ secret: SECRET, sealedText: JSON.stringify({ to: 'eva@tsv.example', code: '12ab' }) }));

    const failure = runMailJob(deps, job);

    await expect(failure).rejects.toMatchObject({ name: 'UnrecoverableError', message: 'the sealed address and code are invalid (code)' });
    await expect(failure).rejects.not.toThrow(/12ab|eva@/);
    expect(sent).toEqual([]);
  });

  it('fails for good on a payload that is not a consent code job', async () => {
    const { deps } = setUp();

    const failure = runMailJob(deps, buildJob({ kind: 'newsletter', version: 1, sealed: 'x' }));

    await expect(failure).rejects.toMatchObject({ name: 'UnrecoverableError', message: expect.stringMatching(/^invalid mail job payload: kind: /) });
  });

  it('subtracts the whole minutes the job waited from the validity it states', async () => {
    const { deps, sent } = setUp({ now: ADDED_AT + 3 * 60_000 + 59_000 });

    await runMailJob(deps, buildJob(buildConsentCodeJob({ secret: SECRET, expiresInMinutes: 10 })));

    expect(String(sent[0]!.message.text)).toContain('7 Minuten');
  });

  it('does not send a code that expired while it waited on the queue', async () => {
    const { deps, sent } = setUp({ now: ADDED_AT + 10 * 60_000 });

    const failure = runMailJob(deps, buildJob(buildConsentCodeJob({ secret: SECRET, expiresInMinutes: 10 })));

    await expect(failure).rejects.toMatchObject({ name: 'UnrecoverableError', message: expect.stringContaining('expired') });
    expect(sent).toEqual([]);
  });

  it('rethrows a send error without the address or the code that the SMTP server quoted', async () => {
    const smtpError = Object.assign(new Error("Can't send mail - all recipients were rejected: 550 5.1.1 <Eva@TSV.example>: unknown user (code 120034)"), {
      code: 'EENVELOPE',
      responseCode: 550,
      command: 'RCPT TO',
      rejected: ['eva@tsv.example'],
      response: '550 5.1.1 <eva@tsv.example>: unknown user',
    });
    const { deps } = setUp({ sendError: smtpError });

    const failure = runMailJob(deps, buildJob(buildConsentCodeJob({ secret: SECRET, to: 'eva@tsv.example', code: '120034' })));

    const err = (await failure.catch((e: unknown) => e)) as Error & Record<string, unknown>;
    expect(err.message).toBe("Can't send mail - all recipients were rejected: 550 5.1.1 <[address]>: unknown user (code [code])");
    expect(err).toMatchObject({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' });
    expect(JSON.stringify({ ...err, stack: err.stack })).not.toMatch(/tsv\.example|120034/i);
  });
});

describe('withoutSecret', () => {
  it('turns anything thrown into an error without the address and the code', () => {
    const err = withoutSecret('refused eva@tsv.example 120034', { to: 'eva@tsv.example', code: '120034' });

    expect(err.message).toBe('refused [address] [code]');
  });
});
