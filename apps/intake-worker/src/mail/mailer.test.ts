import { PassThrough } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { buildIntakeJob } from '../../test/support/build-job.js';
import { buildContactMail } from './contact-mail.js';
import { writeMimeTree } from './mailer.js';
import { buildOperatorMail } from './operator-mail.js';

const settings = { from: 'Merch-Shop Anfragen <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example' };
const png = { url: 'https://cdn.example/wappen.png', filename: 'logo-1-wappen.png', contentType: 'image/png', size: 300, data: Buffer.alloc(300, 7) };

describe('writeMimeTree', () => {
  it.each([
    ['the operator e-mail with a logo', () => buildOperatorMail(buildIntakeJob({ logoUrls: [png.url] }), [png], settings)],
    ['the operator e-mail without logos', () => buildOperatorMail(buildIntakeJob(), [], settings)],
    ['the confirmation', () => buildContactMail(buildIntakeJob(), settings)],
  ])('writes the same bytes as nodemailer’s streaming build for %s', async (_name, build) => {
    const node = new MailComposer({ textEncoding: 'base64', ...build() }).compile();

    const written = writeMimeTree(node);

    expect(written?.toString('utf8')).toBe((await node.build()).toString('utf8'));
  });

  it('leaves a part it cannot write in one pass (a stream) to the streaming build', () => {
    const node = new MailComposer({ text: 'x', attachments: [{ filename: 'a.txt', content: new PassThrough() }] }).compile();

    expect(writeMimeTree(node)).toBeNull();
  });
});
