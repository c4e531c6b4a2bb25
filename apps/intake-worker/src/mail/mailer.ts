/*
 * The one way an e-mail leaves this worker: nodemailer's `sendMail`, on a
 * transport built once per process. With SMTP_URL it is the pooled SMTP
 * transport; without, nodemailer's stream transport hands back the message
 * bytes, which go to the outbox directory. Either way nodemailer composes
 * each message once, encodes and folds every header value and computes the
 * envelope and Message-ID; nothing here writes MIME.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { getOrBuild, type Logger } from '@msa/service-kit';
import nodemailer, { type MailDefaults, type SendMailOptions } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { MailKind } from './mail-settings.js';

export interface Mailer {
  /** `id`: the shop request id, or `mail-<job id>` for a job of the mail queue; it names the outbox file. */
  send(kind: MailKind, id: string, message: SendMailOptions): Promise<void>;
  close(): void;
}

/**
 * Merged into every message. Text parts go base64 (`textEncoding: 'base64'`;
 * short-lined ASCII stays 7bit): nodemailer encodes base64 natively and
 * quoted-printable in JavaScript, which was the largest share of the
 * worker's CPU. No X-Mailer header. Every part is in memory, so a message
 * may neither read a file nor fetch a URL.
 */
export const MESSAGE_DEFAULTS: MailDefaults = {
  textEncoding: 'base64',
  xMailer: false,
  disableFileAccess: true,
  disableUrlAccess: true,
};

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

type AddressField = 'from' | 'to' | 'replyTo';
type Mailbox = { name: string; address: string };
const ADDRESS_FIELDS: AddressField[] = ['from', 'to', 'replyTo'];
// The configured sender and operator addresses, the only address strings that reach the mailer.
const parsedMailboxes = new Map<string, Mailbox | null>();

/**
 * nodemailer reads an address given as a string with its address parser
 * each time it needs it: the envelope (three times per message), the
 * address list, each header. Given as `{ name, address }` it skips that
 * parser, and the headers and envelope are the same (tested). A string is
 * parsed once, by nodemailer itself; only a single mailbox is replaced, a
 * list or a group stays the string it was.
 */
function parsedMailbox(value: string): Mailbox | null {
  return getOrBuild(parsedMailboxes, value, 32, () => {
    const found = new MailComposer({ to: value }).compile().getAddresses().to as unknown as Partial<Mailbox & { group: unknown }>[] | undefined;
    const only = found?.length === 1 ? found[0] : undefined;
    return only?.address && !only.group ? { name: only.name ?? '', address: only.address } : null;
  });
}

/** The message with each address string that names a single mailbox given as that mailbox. */
export function withParsedAddresses(message: SendMailOptions): SendMailOptions {
  let result = message;
  for (const field of ADDRESS_FIELDS) {
    const value = message[field];
    if (typeof value !== 'string') continue;
    const mailbox = parsedMailbox(value);
    if (mailbox) result = { ...result, [field]: mailbox };
  }
  return result;
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

/**
 * nodemailer streams a message part by part, and the SMTP connection wrote
 * every chunk to the socket on its own, about 14 writes per message: the
 * largest single cost of sending. Gathered here (a transform, nodemailer's
 * documented `stream` plugin step), each message is one write.
 */
class WholeMessage extends Transform {
  private readonly chunks: Buffer[] = [];
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.chunks.push(chunk);
    done();
  }
  override _flush(done: TransformCallback): void {
    done(null, Buffer.concat(this.chunks));
  }
}

function createSmtpMailer(url: string, poolSize: number): Mailer {
  const transport = nodemailer.createTransport(
    {
      url,
      pool: true,
      maxConnections: poolSize,
      // Reconnecting (greeting, EHLO) every 100 messages, nodemailer's default, shows under load.
      maxMessages: 10_000,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    },
    MESSAGE_DEFAULTS,
  );
  transport.use('stream', (mail, done) => {
    mail.message.transform(() => new WholeMessage());
    done();
  });
  const slots = createSemaphore(poolSize);
  return {
    async send(_kind, _id, message) {
      // Handed to nodemailer (which composes it at once) only when a connection
      // is free: jobs waiting for one hold their small job data, not a composed
      // message each in the pool's queue, which kept the heap growing under load.
      await slots.run(() => transport.sendMail(withParsedAddresses(message)));
    },
    close() {
      transport.close();
    },
  };
}

function createOutboxMailer(dir: string, logger: Logger): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true }, MESSAGE_DEFAULTS);
  return {
    async send(kind, id, message) {
      const { message: raw } = await transport.sendMail(withParsedAddresses(message));
      await mkdir(dir, { recursive: true });
      // One file per request (or mail job) and kind, written whole and then
      // renamed: a second send replaces the first instead of adding a duplicate.
      const file = path.join(dir, `${id}-${kind}.eml`);
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, raw);
      await rename(partial, file);
      logger.info({ file, kind, ...(kind === 'consent-code' ? { mailId: id } : { shopRequestId: id }) }, 'e-mail written to the outbox');
    },
    close() {
      transport.close();
    },
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
