import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@msa/service-kit';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type { MailKind } from './mail-settings.js';

export interface Mailer {
  send(kind: MailKind, requestId: string, message: SendMailOptions): Promise<void>;
  close(): void;
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
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(_kind, _requestId, message) {
      await transport.sendMail(message);
    },
    close() {
      transport.close();
    },
  };
}

function createOutboxMailer(dir: string, logger: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return {
    async send(kind, requestId, message) {
      const info = await transport.sendMail(message);
      await mkdir(dir, { recursive: true });
      // One file per request and kind, written whole and then renamed: a
      // second send replaces the first instead of adding a duplicate.
      const file = path.join(dir, `${requestId}-${kind}.eml`);
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, info.message as Buffer);
      await rename(partial, file);
      logger.info({ file, kind, shopRequestId: requestId }, 'e-mail written to the outbox');
    },
    close() {
      transport.close();
    },
  };
}
