import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../src/smtp-sink.js';

const sinks: SmtpSink[] = [];

afterEach(async () => {
  for (const sink of sinks.splice(0)) await sink.close();
});

async function sink(opts: Parameters<typeof startSmtpSink>[0] = {}): Promise<SmtpSink> {
  const started = await startSmtpSink(opts);
  sinks.push(started);
  return started;
}

function send(url: string, overrides: { to?: string; subject?: string } = {}) {
  const transport = nodemailer.createTransport({ url, secure: false, ignoreTLS: true });
  return transport
    .sendMail({
      from: 'Shop <noreply@merch.test>',
      to: overrides.to ?? 'operator@merch.test',
      subject: overrides.subject ?? 'Neue Shop-Anfrage',
      text: 'Hallo',
      headers: { 'X-Shop-Request-Id': 'req_1' },
    })
    .finally(() => transport.close());
}

async function waitUntil(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('startSmtpSink', () => {
  it('keeps each accepted message parsed, with its envelope', async () => {
    const smtp = await sink();

    await send(smtp.url, { to: 'a@merch.test, b@merch.test', subject: 'Eins' });

    expect(smtp.received()).toBe(1);
    expect(smtp.messages).toHaveLength(1);
    const [mail] = smtp.messages;
    expect(mail!.parsed.subject).toBe('Eins');
    expect(mail!.parsed.headers.get('x-shop-request-id')).toBe('req_1');
    expect(mail!.rcptTo).toEqual(['a@merch.test', 'b@merch.test']);
    expect(mail!.mailFrom).toBe('noreply@merch.test');
    expect(mail!.raw.toString()).toContain('Subject: Eins');
    expect(smtp.to('b@merch.test')).toHaveLength(1);
    expect(smtp.to('c@merch.test')).toHaveLength(0);
  });

  it('only counts in count mode and keeps nothing', async () => {
    const smtp = await sink({ mode: 'count' });

    await send(smtp.url);
    await send(smtp.url);

    expect(smtp.received()).toBe(2);
    expect(smtp.messages).toHaveLength(0);
  });

  it('answers RCPT TO with the error onRcpt returns and keeps nothing', async () => {
    const smtp = await sink({
      onRcpt: (address) => (address === 'full@merch.test' ? Object.assign(new Error('mailbox busy'), { responseCode: 451 }) : undefined),
    });

    const refused = await send(smtp.url, { to: 'full@merch.test' }).catch((err: { responseCode?: number }) => err);

    expect(refused).toMatchObject({ responseCode: 451 });
    expect(smtp.received()).toBe(0);
  });

  it('refuses connections while taken away and accepts again on the same port once brought back', async () => {
    const smtp = await sink();

    await smtp.takeAway();
    const whileAway = await send(smtp.url).catch((err: { code?: string }) => err);
    await smtp.bringBack();
    await send(smtp.url, { subject: 'Zurück' });

    expect(whileAway).toMatchObject({ code: 'ESOCKET' });
    expect(smtp.isUp()).toBe(true);
    expect(smtp.messages.map((m) => m.parsed.subject)).toEqual(['Zurück']);
  });

  it('waits for beforeAccept before answering 250 and tells when the client went away', async () => {
    let sessionOf: string | undefined;
    const smtp = await sink({
      beforeAccept: async (rcptTo, sessionId) => {
        sessionOf = sessionId;
        expect(rcptTo).toEqual(['operator@merch.test']);
      },
    });

    await send(smtp.url);

    expect(smtp.received()).toBe(1);
    expect(sessionOf).toBeDefined();
    await waitUntil(() => smtp.isClosed(sessionOf!));
  });
});
