import { once } from 'node:events';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  parsed: ParsedMail;
  raw: Buffer;
  rcptTo: string[];
  mailFrom: string;
}

export interface SmtpSinkOptions {
  /** 0 = any free port. */
  port?: number;
  /** An error answers RCPT TO with it (e.g. a 451 for a temporary refusal). */
  onRcpt?: (address: string) => (Error & { responseCode?: number }) | undefined;
  /** Awaited before the final 250 for a message; the client may go away meanwhile. */
  beforeAccept?: (rcptTo: string[], sessionId: string) => Promise<void>;
}

export interface SmtpSink {
  port: number;
  url: string;
  /** Messages the server accepted (answered 250), in order. */
  messages: ReceivedMail[];
  to(address: string): ReceivedMail[];
  /** Whether the client of an SMTP session has gone away. */
  isClosed(sessionId: string): boolean;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on loopback that keeps what it accepts. */
export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const closed = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    closeTimeout: 1_000,
    size: 50 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      callback(opts.onRcpt?.(address.address) ?? null);
    },
    onClose(session: SMTPServerSession) {
      closed.add(session.id);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const rcptTo = session.envelope.rcptTo.map((r) => r.address);
        try {
          await opts.beforeAccept?.(rcptTo, session.id);
          if (closed.has(session.id)) return callback(new Error('client went away'));
          const raw = Buffer.concat(chunks);
          const parsed = await simpleParser(raw);
          messages.push({ parsed, raw, rcptTo, mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '' });
          callback();
        } catch (err) {
          callback(err as Error);
        }
      });
    },
  });
  server.listen(opts.port ?? 0, '127.0.0.1');
  await once(server.server, 'listening');
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to: (address) => messages.filter((m) => m.rcptTo.includes(address)),
    isClosed: (sessionId) => closed.has(sessionId),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
