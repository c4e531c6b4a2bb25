// The operator's mail server as far as the worker can tell: a real SMTP
// server (smtp-server) whose messages are parsed with mailparser. It can be
// taken away (connections refused) and brought back on the same port.
import { once } from 'node:events';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  messageId: string;
  rcptTo: string[];
  /** The `X-Shop-Request-Id` header both intake e-mails carry. */
  shopRequestId: string | undefined;
  receivedAt: number;
}

export interface SmtpSink {
  url: string;
  port: number;
  mails: ReceivedMail[];
  isUp(): boolean;
  /** Closes the listening socket and the open connections: the worker's sends fail until `bringBack`. */
  takeAway(): Promise<void>;
  bringBack(): Promise<void>;
  close(): Promise<void>;
}

export async function startSmtpSink(port: number): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  let server: SMTPServer | undefined;

  async function listen() {
    const srv = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      closeTimeout: 500,
      onData(stream, session, callback) {
        simpleParser(stream, { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true })
          .then((parsed) => {
            const header = parsed.headers.get('x-shop-request-id');
            mails.push({
              messageId: parsed.messageId ?? '',
              rcptTo: session.envelope.rcptTo.map((r) => r.address),
              shopRequestId: typeof header === 'string' ? header : undefined,
              receivedAt: Date.now(),
            });
            callback();
          })
          .catch(callback);
      },
    });
    srv.on('error', () => undefined);
    srv.listen(port, '127.0.0.1');
    await once(srv.server, 'listening');
    server = srv;
  }

  async function takeAway() {
    const srv = server;
    server = undefined;
    if (srv) await new Promise<void>((resolve) => srv.close(() => resolve()));
  }

  await listen();
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mails,
    isUp: () => server !== undefined,
    takeAway,
    async bringBack() {
      if (!server) await listen();
    },
    close: takeAway,
  };
}
