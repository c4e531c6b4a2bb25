import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Logger } from '@msa/service-kit';
import nodemailer, { type SendMailOptions, type Transport } from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer';
import type MailMessage from 'nodemailer/lib/mailer/mail-message';
import type MimeNode from 'nodemailer/lib/mime-node';
import type { MailKind } from './mail-settings.js';
import { base64Lines, joinWithLastNewline, writeMail } from './mime-writer.js';

export interface Mailer {
  /** `id`: the shop request id, or `mail-<job id>` for a job of the mail queue; it names the outbox file. */
  send(kind: MailKind, id: string, message: SendMailOptions): Promise<void>;
  close(): void;
}

export interface ComposedMail {
  envelope: { from: string | false; to: string[] };
  messageId: string;
  raw: Buffer;
}

/**
 * The whole message as one buffer. The e-mails this worker builds are
 * written directly (mime-writer.ts); anything else goes through nodemailer's
 * composer, which builds the MIME tree and encodes every header value, and
 * the tree is then written out in one synchronous pass instead of through its
 * streams, which cost a pipeline, an encoder and an AbortController per part
 * (Node 20 builds a DOMException for each). Text parts are base64, which
 * encodes natively, where quoted-printable runs in JavaScript.
 */
export async function composeMail(message: SendMailOptions): Promise<ComposedMail> {
  const written = writeMail(message);
  if (written) return written;
  const node = new MailComposer({ textEncoding: 'base64', ...message }).compile();
  // A part this pass does not know (a stream, a file, raw input) goes the streaming way.
  const raw = writeMimeTree(node) ?? (await node.build());
  const envelope = node.getEnvelope();
  return { envelope: { from: envelope.from, to: envelope.to }, messageId: node.messageId(), raw };
}

/** The bytes `node.build()` streams, or null when a part needs the streams. */
export function writeMimeTree(node: MimeNode): Buffer | null {
  const chunks: (string | Buffer)[] = [];
  return writeNode(node, chunks) ? joinWithLastNewline(chunks) : null;
}

/** Appends what `node.build()` would stream for `node`; false when a part needs the streams. */
function writeNode(node: MimeNode, out: (string | Buffer)[]): boolean {
  const content = node.content;
  if ((node as { _raw?: unknown })._raw || (content && typeof content !== 'string' && !Buffer.isBuffer(content))) return false;
  const encoding = node.getTransferEncoding();
  if (content && encoding === 'quoted-printable') return false;
  out.push(`${node.buildHeaders()}\r\n\r\n`);
  if (content) out.push(encoding === 'base64' ? base64Lines(content) : content);
  // buildHeaders() has set `multipart` and `boundary` from the Content-Type.
  if (node.multipart) {
    for (const [i, child] of node.childNodes.entries()) {
      out.push(`${i > 0 ? '\r\n' : ''}--${String(node.boundary)}\r\n`);
      if (!writeNode(child, out)) return false;
    }
    out.push(`\r\n--${String(node.boundary)}--\r\n`);
  }
  return true;
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
      await slots.run(async () => sendComposed(transport.transporter, await composeMail(message)));
    },
    close() {
      transport.close();
    },
  };
}

/**
 * Hands the finished bytes to the pool as they are. `sendMail({ raw })`
 * would run them through the composer a second time (a MIME node around the
 * raw message, streamed through its pipeline); the pool needs no more of a
 * message than its envelope, its Message-ID and a stream of its bytes (one
 * per attempt: the pool sends a message again over another connection when
 * the server closed the first before it was read).
 */
function sendComposed(pool: Transport, mail: ComposedMail): Promise<void> {
  const envelope = { from: mail.envelope.from || '', to: mail.envelope.to };
  const message = {
    getEnvelope: () => ({ ...envelope, to: [...envelope.to] }),
    messageId: () => mail.messageId,
    getHeader: (key: string) => (key.toLowerCase() === 'message-id' ? mail.messageId : undefined),
    createReadStream: () =>
      new Readable({
        read() {
          this.push(mail.raw);
          this.push(null);
        },
      }),
  };
  return new Promise((resolve, reject) => {
    pool.send({ data: {}, message } as unknown as MailMessage, (err) => (err ? reject(err) : resolve()));
  });
}

function createOutboxMailer(dir: string, logger: Logger): Mailer {
  return {
    async send(kind, id, message) {
      const { raw } = await composeMail(message);
      await mkdir(dir, { recursive: true });
      // One file per request (or mail job) and kind, written whole and then
      // renamed: a second send replaces the first instead of adding a duplicate.
      const file = path.join(dir, `${id}-${kind}.eml`);
      const partial = `${file}.${process.pid}.partial`;
      await writeFile(partial, raw);
      await rename(partial, file);
      logger.info({ file, kind, ...(kind === 'consent-code' ? { mailId: id } : { shopRequestId: id }) }, 'e-mail written to the outbox');
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
