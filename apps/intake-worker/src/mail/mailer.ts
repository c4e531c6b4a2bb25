import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@msa/service-kit';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { MailKind } from './mail-settings.js';

export interface Mailer {
  send(kind: MailKind, requestId: string, message: SendMailOptions): Promise<void>;
  close(): void;
}

export interface ComposedMail {
  envelope: { from: string | false; to: string[] };
  raw: Buffer;
}

/**
 * The whole message as one buffer, encoded by nodemailer's composer (every
 * header value encoded by it, none assembled here). Composing first and
 * sending the bytes as they are costs a fraction of streaming the composer
 * into the SMTP socket, which writes many small pieces; text parts are
 * base64, which encodes natively, where quoted-printable runs in JavaScript.
 */
export async function composeMail(message: SendMailOptions): Promise<ComposedMail> {
  const node = new MailComposer({ textEncoding: 'base64', ...message }).compile();
  const raw = await node.build();
  const envelope = node.getEnvelope();
  return { envelope: { from: envelope.from, to: envelope.to }, raw };
}

/**
 * True when a send failed before the server could have taken the message:
 * no connection, or the sender or a recipient refused. A failure during or
 * after the message data is not known to be harmless (the server may have
 * queued it and the answer got lost), so it returns false.
 */
export function failedBeforeData(err: unknown): boolean {
  const e = err as { code?: unknown; command?: unknown; syscall?: unknown };
  if (['EENVELOPE', 'EDNS', 'EAUTH', 'ENOAUTH', 'ETLS', 'ECONFIG'].includes(String(e.code))) return true;
  if (e.syscall === 'connect' || e.syscall === 'getaddrinfo') return true;
  return typeof e.command === 'string' && /^(MAIL FROM|RCPT TO|EHLO|HELO|LHLO|STARTTLS|AUTH)\b/i.test(e.command);
}

export interface MailerOptions {
  smtpUrl?: string;
  poolSize: number;
  outboxDir: string;
  logger: Logger;
}

/**
 * SMTP when SMTP_URL is set (a pool of connections; throughput comes from
 * reusing them), else `.eml` files in the outbox directory for development.
 */
export function createMailer(opts: MailerOptions): Mailer {
  return opts.smtpUrl ? createSmtpMailer(opts.smtpUrl, opts.poolSize) : createOutboxMailer(opts.outboxDir, opts.logger);
}

function createSmtpMailer(url: string, poolSize: number): Mailer {
  const transport = nodemailer.createTransport({
    url,
    pool: true,
    maxConnections: poolSize,
    // Reconnecting (greeting, EHLO) every 100 messages, nodemailer's default, shows under load.
    maxMessages: 10_000,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  const slots = createSemaphore(poolSize);
  return {
    async send(_kind, _requestId, message) {
      // Composed only once a connection is free: jobs waiting for one hold
      // their small job data, not a finished message each, which kept the
      // heap growing under load.
      await slots.run(async () => {
        const { envelope, raw } = await composeMail(message);
        await transport.sendMail({ envelope: { from: envelope.from || undefined, to: envelope.to }, raw });
      });
    },
    close() {
      transport.close();
    },
  };
}

function createOutboxMailer(dir: string, logger: Logger): Mailer {
  return {
    async send(kind, requestId, message) {
      const { raw } = await composeMail(message);
      await mkdir(dir, { recursive: true });
      // One file per request and kind, written whole and then renamed: a
      // second send replaces the first instead of adding a duplicate.
      const file = path.join(dir, `${requestId}-${kind}.eml`);
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, raw);
      await rename(partial, file);
      logger.info({ file, kind, shopRequestId: requestId }, 'e-mail written to the outbox');
    },
    close() {},
  };
}

function createSemaphore(size: number) {
  let free = size;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(work: () => Promise<T>): Promise<T> {
      if (free > 0) free--;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await work();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else free++;
      }
    },
  };
}
