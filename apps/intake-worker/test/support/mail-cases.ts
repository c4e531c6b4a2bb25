/*
 * The e-mails this worker writes, and messages shaped to test what nodemailer
 * does with their headers: values that need encoding, quoting and folding,
 * and values that carry line breaks. The unit test (the outbox) and the
 * component test (the SMTP pool) send the same cases through the mailer.
 */
import type { SendMailOptions } from 'nodemailer';
import { expect } from 'vitest';
import { buildConsentCodeMail } from '../../src/mail/consent-code-mail.js';
import { buildContactMail } from '../../src/mail/contact-mail.js';
import { buildOperatorMail } from '../../src/mail/operator-mail.js';
import { buildIntakeJob } from './build-job.js';
import { buildConsentCodeJob } from './build-mail-job.js';

export const mailSettings = { from: 'Merch-Shop Anfragen <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example', publicBaseUrl: 'https://api.shop.example' };

const png = { url: 'https://cdn.example/wappen.png', filename: 'logo-1-wappen.png', contentType: 'image/png', size: 300, data: Buffer.alloc(300, 7) };
const jpg = { url: 'https://cdn.example/b.jpg', filename: 'logo-2-b.jpg', contentType: 'image/jpeg', size: 90_000, data: Buffer.alloc(90_000, 1) };
const longName = 'Förderverein der Freiwilligen Feuerwehr Musterstadt-Süd und Umgebung e.V. (Jugendabteilung)';

export interface MailCase {
  name: string;
  build: () => SendMailOptions;
  /** The SMTP envelope the message must get. */
  envelope: { from: string; to: string[] };
}

const CONTACT = 'erika.mustermann@example.org';

export const MAIL_CASES: MailCase[] = [
  {
    name: 'the operator e-mail without logos',
    build: () => buildOperatorMail(buildIntakeJob(), [], mailSettings),
    envelope: { from: 'anfragen@shop.example', to: ['team@shop.example'] },
  },
  {
    name: 'the operator e-mail with two logos',
    build: () => buildOperatorMail(buildIntakeJob({ logoUrls: [png.url, jpg.url] }), [png, jpg], mailSettings),
    envelope: { from: 'anfragen@shop.example', to: ['team@shop.example'] },
  },
  {
    name: 'the confirmation',
    build: () => buildContactMail(buildIntakeJob(), mailSettings),
    envelope: { from: 'anfragen@shop.example', to: [CONTACT] },
  },
  {
    name: 'the operator e-mail with long non-ASCII names that fold',
    build: () =>
      buildOperatorMail(buildIntakeJob({ organization: { name: longName, contact_name: 'Dr. Jürgen Groß-Öztürk, "Jugendwart"' } }), [], mailSettings),
    envelope: { from: 'anfragen@shop.example', to: ['team@shop.example'] },
  },
  {
    name: 'the confirmation to a contact whose name needs quoting',
    build: () =>
      buildContactMail(buildIntakeJob({ organization: { contact_name: 'Müller, Hans (Vorstand) <x@y>' }, body: { shop_name: longName.slice(0, 80) } }), mailSettings),
    envelope: { from: 'anfragen@shop.example', to: [CONTACT] },
  },
  {
    name: 'the confirmation without trace headers',
    build: () => buildContactMail(buildIntakeJob({ trace: {} }), mailSettings),
    envelope: { from: 'anfragen@shop.example', to: [CONTACT] },
  },
  ...(['de', 'en'] as const).map(
    (lang): MailCase => ({
      name: `the consent code e-mail in ${lang}`,
      build: () =>
        buildConsentCodeMail(buildConsentCodeJob({ lang }), { to: CONTACT, code: '482915' }, mailSettings, {
          validMinutes: 10,
          messageId: '<mail-1-2.consent-code@shop.example>',
        }),
      envelope: { from: 'anfragen@shop.example', to: [CONTACT] },
    }),
  ),
  {
    name: 'the confirmation from a bare address to an internationalised domain',
    build: () => ({
      ...buildContactMail(buildIntakeJob(), { ...mailSettings, from: 'anfragen@shop.example' }),
      to: { name: 'Jürgen Groß', address: 'kontakt@bäckerei-müller.example' },
    }),
    envelope: { from: 'anfragen@shop.example', to: ['kontakt@xn--bckerei-mller-bfb28a.example'] },
  },
  {
    name: 'values carrying line breaks and control characters',
    build: () => ({
      from: mailSettings.from,
      to: mailSettings.operatorEmail,
      replyTo: { name: 'Eve\r\nBcc: x@evil.test', address: 'eve@example.org' },
      subject: 'Anfrage\r\nBcc: x@evil.test\u0007',
      messageId: '<m3@shop.example>\r\nBcc: x@evil.test',
      headers: { 'X-Request-Id': 'abc\r\nBcc: y@evil.test', 'X-Shop-Request-Id': 'req_1' },
      text: 'Text\r\n',
      html: '<p>Text</p>',
    }),
    envelope: { from: 'anfragen@shop.example', to: ['team@shop.example'] },
  },
];

/** The header section of a message: everything before the first empty line. */
export function headerBlock(raw: Buffer | string): string {
  const text = raw.toString();
  return text.slice(0, text.indexOf('\r\n\r\n'));
}

/**
 * What the headers of every message must be: plain ASCII (values that need
 * more are encoded), lines folded to 78 characters, no header that a value
 * brought in with its line breaks, and the message's own Message-ID.
 */
export function expectSafeHeaders(raw: Buffer | string, message: SendMailOptions): void {
  const headers = headerBlock(raw);
  expect(headers).toMatch(/^[\x20-\x7e\r\n\t]*$/);
  for (const line of headers.split('\r\n')) expect(line.length).toBeLessThanOrEqual(78);
  expect(headers).not.toMatch(/^Bcc:/im);
  expect(headers.match(/^[A-Za-z-]+:/gm)?.filter((key) => key.toLowerCase() === 'message-id:')).toHaveLength(1);
  const messageId = String(message.messageId);
  if (!/[\r\n]/.test(messageId)) expect(headers).toContain(`\r\nMessage-ID: ${messageId}\r\n`);
}
