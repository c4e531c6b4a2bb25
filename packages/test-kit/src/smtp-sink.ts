// The one SMTP server of tests, drills and the bench: a real smtp-server on
// loopback standing in for the operator's mail server. Tests read what it
// parsed, drills take it away and bring it back, the bench only counts.
import { simpleParser, type ParsedMail, type SimpleParserOptions } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  parsed: ParsedMail;
  raw: Buffer;
  rcptTo: string[];
  mailFrom: string;
  /** Date.now() when the sink answered 250. */
  receivedAt: number;
}

export interface SmtpSinkOptions {
  /** 0 (default) = any free port; the sink keeps the port it got across takeAway/bringBack. */
  port?: number;
  /**
   * `parse` (default) keeps every accepted message parsed with mailparser.
   * `count` only reads each message to its end and counts it: the bench
   * measures the worker, not the sink.
   */
  mode?: 'parse' | 'count';
  /** Passed to mailparser, e.g. to skip the HTML-to-text work under load. */
  parserOptions?: SimpleParserOptions;
  /** An error answers RCPT TO with it (e.g. a 451 for a temporary refusal). */
  onRcpt?: (address: string) => (Error & { responseCode?: number }) | undefined;
  /** Awaited before the final 250 for a message; the client may go away meanwhile. */
  beforeAccept?: (rcptTo: string[], sessionId: string) => Promise<void>;
  /** How long close and takeAway wait for open connections before cutting them. */
  closeTimeoutMs?: number;
}

export interface SmtpSink {
  port: number;
  url: string;
  /** Messages the server accepted (answered 250), in order; empty in `count` mode. */
  messages: ReceivedMail[];
  /** How many messages the server accepted, in either mode. */
  received(): number;
  to(address: string): ReceivedMail[];
  /** Whether the client of an SMTP session has gone away. */
  isClosed(sessionId: string): boolean;
  isUp(): boolean;
  /** Closes the listening socket and open connections: sends fail until `bringBack`. */
  takeAway(): Promise<void>;
  /** Listens again on the same port. */
  bringBack(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const parse = (opts.mode ?? 'parse') === 'parse';
  const messages: ReceivedMail[] = [];
  const closed = new Set<string>();
  let count = 0;
  let port = opts.port ?? 0;
  let server: SMTPServer | undefined;

  async function accept(session: SMTPServerSession, chunks: Buffer[] | undefined): Promise<void> {
    const rcptTo = session.envelope.rcptTo.map((r) => r.address);
    await opts.beforeAccept?.(rcptTo, session.id);
    if (closed.has(session.id)) throw new Error('client went away');
    if (chunks) {
      const raw = Buffer.concat(chunks);
      const parsed = await simpleParser(raw, opts.parserOptions);
      const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      messages.push({ parsed, raw, rcptTo, mailFrom, receivedAt: Date.now() });
    }
    count++;
  }

  async function listen(): Promise<void> {
    const srv = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      disableReverseLookup: true,
      logger: false,
      maxClients: 1_000,
      closeTimeout: opts.closeTimeoutMs ?? 1_000,
      size: 50 * 1024 * 1024,
      onRcptTo(address, _session, callback) {
        callback(opts.onRcpt?.(address.address) ?? null);
      },
      onClose(session) {
        closed.add(session.id);
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] | undefined = parse ? [] : undefined;
        if (chunks) stream.on('data', (c: Buffer) => chunks.push(c));
        else stream.resume();
        stream.on('end', () => {
          // The bench's path: no promise and no copy per message.
          if (!chunks && !opts.beforeAccept) {
            count++;
            return callback();
          }
          accept(session, chunks).then(() => callback(), (err: Error) => callback(err));
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => {
        srv.off('error', reject);
        resolve();
      });
    });
    // A client that drops its connection mid-message is not the sink's problem.
    srv.on('error', () => undefined);
    const address = srv.server.address();
    if (typeof address === 'object' && address) port = address.port;
    server = srv;
  }

  async function takeAway(): Promise<void> {
    const srv = server;
    server = undefined;
    if (srv) await new Promise<void>((resolve) => srv.close(() => resolve()));
  }

  await listen();
  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    received: () => count,
    to: (address) => messages.filter((m) => m.rcptTo.includes(address)),
    isClosed: (sessionId) => closed.has(sessionId),
    isUp: () => server !== undefined,
    takeAway,
    async bringBack() {
      if (!server) await listen();
    },
    close: takeAway,
  };
}
