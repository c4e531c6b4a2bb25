import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testLogger } from '@msa/test-kit';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSafeHeaders, MAIL_CASES } from '../../test/support/mail-cases.js';
import { createMailer, failedBeforeData, MESSAGE_DEFAULTS, withParsedAddresses, type Mailer } from './mailer.js';

let outbox: string;
let mailer: Mailer;

beforeAll(async () => {
  outbox = await mkdtemp(path.join(tmpdir(), 'mailer-outbox-'));
  mailer = createMailer({ poolSize: 1, outboxDir: outbox, logger: testLogger() });
});

afterAll(async () => {
  mailer?.close();
  if (outbox) await rm(outbox, { recursive: true, force: true });
});

describe('createMailer without SMTP', () => {
  it.each(MAIL_CASES)('writes $name with encoded, folded headers and its own Message-ID', async ({ name, build }) => {
    const message = build();
    const id = `case-${MAIL_CASES.findIndex((c) => c.name === name)}`;

    await mailer.send('operator', id, message);

    const raw = await readFile(path.join(outbox, `${id}-operator.eml`));
    expectSafeHeaders(raw, message);
    const parsed = await simpleParser(raw);
    expect(parsed.subject).toBe(String(message.subject).replace(/[\r\n]+/g, ' '));
    expect(parsed.text?.trim()).toBe(String(message.text).trim());
  });

  it('keeps a display name with a line break as one encoded name, not a header', async () => {
    const message = MAIL_CASES.find((c) => c.name.startsWith('values carrying'))!.build();

    await mailer.send('confirmation', 'injection', message);

    const parsed = await simpleParser(await readFile(path.join(outbox, 'injection-confirmation.eml')));
    expect(parsed.replyTo?.value).toEqual([{ name: 'Eve\r\nBcc: x@evil.test', address: 'eve@example.org' }]);
    expect(parsed.headers.has('bcc')).toBe(false);
  });

  it('replaces the file of an e-mail sent again instead of adding one', async () => {
    const message = MAIL_CASES[2]!.build();

    await mailer.send('confirmation', 'twice', message);
    await mailer.send('confirmation', 'twice', message);

    expect((await readdir(outbox)).filter((f) => f.startsWith('twice'))).toEqual(['twice-confirmation.eml']);
  });
});

describe('withParsedAddresses', () => {
  // Boundaries are random per message; everything else must be byte for byte the same.
  const composed = async (message: Parameters<typeof withParsedAddresses>[0]) => {
    const node = new MailComposer({ ...MESSAGE_DEFAULTS, ...message, date: new Date(0) }).compile();
    return { bytes: (await node.build()).toString().replace(/_NmP-[0-9a-f]+-Part/g, 'boundary'), envelope: node.getEnvelope() };
  };

  it.each(MAIL_CASES)('gives nodemailer $name with the same headers, body and envelope', async ({ build }) => {
    const message = build();
    const parsed = withParsedAddresses(message);

    expect(typeof parsed.from).toBe('object');
    expect(await composed(parsed)).toEqual(await composed(message));
  });

  it('leaves an address list or a group as the string it was', () => {
    const message = { from: 'a@shop.example', to: 'a@shop.example, b@shop.example', replyTo: 'Team: a@shop.example, b@shop.example;' };

    expect(withParsedAddresses(message)).toEqual({ ...message, from: { name: '', address: 'a@shop.example' } });
  });
});

describe('failedBeforeData', () => {
  it('tells a refused connection or recipient from a failure during the message data', () => {
    expect(failedBeforeData(Object.assign(new Error('connect ECONNREFUSED'), { syscall: 'connect' }))).toBe(true);
    expect(failedBeforeData(Object.assign(new Error('550 no such user'), { command: 'RCPT TO' }))).toBe(true);
    expect(failedBeforeData(Object.assign(new Error('451 try later'), { command: 'DATA' }))).toBe(false);
  });
});
