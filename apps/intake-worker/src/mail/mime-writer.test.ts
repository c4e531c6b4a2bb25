import type { SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { buildIntakeJob } from '../../test/support/build-job.js';
import { buildConsentCodeJob } from '../../test/support/build-mail-job.js';
import { buildConsentCodeMail } from './consent-code-mail.js';
import { buildContactMail } from './contact-mail.js';
import { writeMimeTree } from './mailer.js';
import { writeMail } from './mime-writer.js';
import { buildOperatorMail } from './operator-mail.js';

const settings = { from: 'Merch-Shop Anfragen <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example' };
const png = { url: 'https://cdn.example/wappen.png', filename: 'logo-1-wappen.png', contentType: 'image/png', size: 300, data: Buffer.alloc(300, 7) };
const jpg = { url: 'https://cdn.example/b.jpg', filename: 'logo-2-b.jpg', contentType: 'image/jpeg', size: 90_000, data: Buffer.alloc(90_000, 1) };
const pinned = { date: new Date('2030-01-15T09:31:07.000Z'), baseBoundary: '0123456789abcdef' };

/** nodemailer's own bytes and envelope for the same message, with the same date and boundary base. */
async function composedByNodemailer(message: SendMailOptions) {
  const node = new MailComposer({ textEncoding: 'base64', ...message, ...pinned }).compile();
  return { raw: (await node.build()).toString('utf8'), envelope: node.getEnvelope(), messageId: node.messageId() };
}

const longName = 'Förderverein der Freiwilligen Feuerwehr Musterstadt-Süd und Umgebung e.V. (Jugendabteilung)';

describe('writeMail', () => {
  it.each<[string, () => SendMailOptions]>([
    ['the operator e-mail without logos', () => buildOperatorMail(buildIntakeJob(), [], settings)],
    ['the operator e-mail with two logos', () => buildOperatorMail(buildIntakeJob({ logoUrls: [png.url, jpg.url] }), [png, jpg], settings)],
    ['the confirmation', () => buildContactMail(buildIntakeJob(), settings)],
    [
      'the operator e-mail with long non-ASCII names that fold',
      () => buildOperatorMail(buildIntakeJob({ organization: { name: longName, contact_name: 'Dr. Jürgen Groß-Öztürk, "Jugendwart"' } }), [], settings),
    ],
    [
      'the confirmation to a contact whose name needs quoting',
      () => buildContactMail(buildIntakeJob({ organization: { contact_name: 'Müller, Hans (Vorstand) <x@y>' }, body: { shop_name: longName.slice(0, 80) } }), settings),
    ],
    ['the confirmation without trace headers', () => buildContactMail(buildIntakeJob({ trace: {} }), settings)],
    ...(['de', 'en'] as const).map((lang): [string, () => SendMailOptions] => [
      `the consent code e-mail in ${lang}`,
      () =>
        buildConsentCodeMail(buildConsentCodeJob({ lang }), { to: 'erika.mustermann@example.org', code: '482915' }, settings, {
          validMinutes: 10,
          messageId: '<mail-1-2.consent-code@shop.example>',
        }),
    ]),
    [
      'the confirmation from a bare address to an internationalised domain',
      () => ({
        ...buildContactMail(buildIntakeJob(), { ...settings, from: 'anfragen@shop.example' }),
        to: { name: 'Jürgen Groß', address: 'kontakt@bäckerei-müller.example' },
      }),
    ],
    [
      'a message with short ASCII text parts (7bit) and a string attachment',
      () => ({
        from: 'a@shop.example',
        to: 'b@shop.example',
        subject: 'Plain',
        messageId: '<m1@shop.example>',
        text: 'short lines only\n',
        html: '<p>short</p>',
        attachments: [{ filename: 'notes.json', content: '{"a":1}\n', contentType: 'application/json; charset=utf-8' }],
      }),
    ],
    [
      'a message with a long attachment name',
      () => ({
        from: 'a@shop.example',
        to: 'b@shop.example',
        subject: 'Anhang',
        messageId: '<m2@shop.example>',
        text: 'x',
        html: 'y',
        attachments: [{ filename: `anfrage-req_${'0123456789abcdef'.repeat(6)}.json`, content: Buffer.from('{}'), contentType: 'application/json' }],
      }),
    ],
    [
      'values carrying line breaks and control characters',
      () => ({
        from: settings.from,
        to: settings.operatorEmail,
        replyTo: { name: 'Eve\r\nBcc: x@evil.test', address: 'eve@example.org' },
        subject: 'Anfrage\r\nBcc: x@evil.test\u0007',
        messageId: '<m3@shop.example>\r\nBcc: x@evil.test',
        headers: { 'X-Request-Id': 'abc\r\nBcc: y@evil.test', 'X-Shop-Request-Id': 'req_1' },
        text: 'Text\r\n',
        html: '<p>Text</p>',
      }),
    ],
  ])('writes the same bytes, envelope and Message-ID as nodemailer’s composer for %s', async (_name, build) => {
    const message = build();

    const written = writeMail(message, pinned);

    expect(written).not.toBeNull();
    const expected = await composedByNodemailer(message);
    expect(written!.raw.toString('utf8')).toBe(expected.raw);
    expect(written!.envelope).toEqual(expected.envelope);
    expect(written!.messageId).toBe(expected.messageId);
  });

  it('writes no header line of a value’s own, whatever line breaks the values carry', () => {
    const message = {
      ...buildContactMail(buildIntakeJob(), settings),
      to: { name: 'Eve\r\nBcc: x@evil.test', address: 'eve@example.org' },
      subject: 'Anfrage\nBcc: x@evil.test',
      headers: { 'X-Request-Id': 'abc\r\nBcc: y@evil.test' },
    };

    const raw = writeMail(message)!.raw.toString('utf8');

    expect(raw).not.toMatch(/^Bcc:/im);
    expect(writeMail(message)!.envelope.to).toEqual(['eve@example.org']);
  });

  it('writes the same bytes as the composer’s one-pass writer, which the streaming build is compared with', () => {
    const message = buildOperatorMail(buildIntakeJob({ logoUrls: [png.url] }), [png], settings);

    const written = writeMail(message, pinned);

    const node = new MailComposer({ textEncoding: 'base64', ...message, ...pinned }).compile();
    expect(written!.raw.equals(writeMimeTree(node)!)).toBe(true);
  });

  it('gives every message a boundary of its own', () => {
    const message = buildContactMail(buildIntakeJob(), settings);

    const first = writeMail(message)!.raw.toString('utf8');
    const second = writeMail(message)!.raw.toString('utf8');

    const boundary = (raw: string) => /boundary="([^"]+)"/.exec(raw)?.[1];
    expect(boundary(first)).toMatch(/^--_NmP-[0-9a-f]{16}-Part_1$/);
    expect(boundary(first)).not.toBe(boundary(second));
  });

  it.each<[string, Partial<SendMailOptions>]>([
    ['a header it does not know', { headers: { 'X-Other': 'x' } }],
    ['a Cc', { cc: 'c@shop.example' }],
    ['an attachment read from a path', { attachments: [{ filename: 'a.png', path: '/tmp/a.png' }] }],
    ['an attachment name that needs encoding', { attachments: [{ filename: 'Wappen Süd.png', content: Buffer.alloc(3), contentType: 'image/png' }] }],
    ['a text attachment', { attachments: [{ filename: 'a.txt', content: 'x', contentType: 'text/plain' }] }],
    ['no HTML part', { html: undefined }],
    ['a list of recipients', { to: ['a@shop.example', 'b@shop.example'] }],
  ])('leaves a message with %s to the composer', (_name, change) => {
    const message = { ...buildContactMail(buildIntakeJob(), settings), ...change };

    expect(writeMail(message)).toBeNull();
  });
});
