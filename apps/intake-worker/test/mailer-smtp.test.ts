import { domainToUnicode } from 'node:url';
import { startSmtpSink, testLogger, type SmtpSink } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer, type Mailer } from '../src/mail/mailer.js';
import { expectSafeHeaders, headerBlock, MAIL_CASES } from './support/mail-cases.js';

/** The sink reports an internationalised domain decoded; the message carries its A-label (checked below). */
const decoded = (address: string) => address.replace(/@(.+)$/, (_, domain: string) => `@${domainToUnicode(domain)}`);

let smtp: SmtpSink;
let mailer: Mailer;

beforeAll(async () => {
  smtp = await startSmtpSink();
  mailer = createMailer({ smtpUrl: smtp.url, poolSize: 2, outboxDir: '/nonexistent', logger: testLogger() });
});

afterAll(async () => {
  mailer?.close();
  await smtp?.close();
});

describe('createMailer over SMTP', () => {
  it.each(MAIL_CASES)('sends $name with the envelope and headers it must have', async ({ build, envelope }) => {
    const message = build();
    const before = smtp.messages.length;

    await mailer.send('operator', 'req_1', message);

    expect(smtp.messages).toHaveLength(before + 1);
    const received = smtp.messages[before]!;
    expect({ from: received.mailFrom, to: received.rcptTo }).toEqual({ from: envelope.from, to: envelope.to.map(decoded) });
    expectSafeHeaders(received.raw, message);
    for (const address of envelope.to) expect(headerBlock(received.raw)).toContain(address);
    if (!/[\r\n]/.test(String(message.messageId))) expect(received.parsed.messageId).toBe(message.messageId);
  });

  it('sends the attachments as they were given', async () => {
    const message = MAIL_CASES.find((c) => c.name === 'the operator e-mail with two logos')!.build();
    const before = smtp.messages.length;

    await mailer.send('operator', 'req_2', message);

    const { attachments } = smtp.messages[before]!.parsed;
    expect(attachments.map((a) => [a.filename, a.contentType, a.size])).toEqual([
      ['logo-1-wappen.png', 'image/png', 300],
      ['logo-2-b.jpg', 'image/jpeg', 90_000],
      [expect.stringMatching(/^anfrage-req_[0-9a-f]{16}\.json$/), 'application/json', expect.any(Number)],
    ]);
  });
});
