import dns from 'node:dns';
import net from 'node:net';

const LOOPBACK_ADDRESS = /^(127\.|::1$|::ffff:127\.)/;

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
type LookupFn = (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => void;

function refusal(address: string): Error {
  return new Error(`Tests may only connect to loopback addresses, not ${address}`);
}

/** Wraps a DNS lookup so a name that resolves off the machine fails the connection. */
function loopbackOnlyLookup(original: LookupFn): LookupFn {
  return (hostname, options, callback) =>
    original(hostname, options, (err, address, family) => {
      if (err) return callback(err, address, family);
      const all = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const outside = all.find((a) => !LOOPBACK_ADDRESS.test(a));
      if (outside) return callback(refusal(`${hostname} (${outside})`), address, family);
      callback(null, address, family);
    });
}

/**
 * Makes any TCP connection that would leave the machine fail, so a test
 * that forgets a stub and reaches for the internet fails loudly. IP literals
 * are checked at once; a name is checked on the addresses it resolves to
 * (through the connection's own `lookup`, so pinned lookups keep working).
 * Call it from a vitest setup file.
 */
let installed = false;

export function refuseNonLoopbackConnections(): void {
  if (installed) return;
  installed = true;
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function patched(this: net.Socket, ...callArgs: unknown[]) {
    // net.connect() passes its arguments already normalised, as one array.
    const args = Array.isArray(callArgs[0]) ? (callArgs[0] as unknown[]) : callArgs;
    const first = args[0];
    if (first && typeof first === 'object' && !('path' in first && (first as net.IpcNetConnectOpts).path)) {
      const opts = first as net.TcpNetConnectOpts;
      const host = opts.host ?? 'localhost';
      if (net.isIP(host)) {
        if (!LOOPBACK_ADDRESS.test(host)) throw refusal(host);
      } else {
        opts.lookup = loopbackOnlyLookup((opts.lookup as LookupFn | undefined) ?? (dns.lookup as unknown as LookupFn));
      }
    } else if (typeof args[1] === 'string' && net.isIP(args[1]) && !LOOPBACK_ADDRESS.test(args[1])) {
      throw refusal(args[1]);
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, callArgs);
  } as typeof original;
}

/** The body of a `Transfer-Encoding: chunked` answer read off a raw socket. */
export function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const nl = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, nl), 16);
    if (!size) return out;
    out += rest.slice(nl + 2, nl + 2 + size);
    rest = rest.slice(nl + 2 + size + 2);
  }
}

/** What a server answered on a raw socket, and how many bytes the client had trickled by then. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Bytes written after the head when the connection closed. */
  bytesSent: number;
}

export interface Trickle {
  /** Resolves when the server closes the connection, with what it answered. */
  answer: Promise<RawAnswer>;
  /** Closes the connection from the client's side. */
  abort(): void;
}

/**
 * A slow client: writes `head`, then one byte every `intervalMs` (`byte(n)`
 * for the n-th, `x` by default: a body, or the rest of the headers) until
 * the server closes the connection.
 */
export function trickle(port: number, head: string, { intervalMs = 100, byte = () => 'x' }: { intervalMs?: number; byte?: (n: number) => string } = {}): Trickle {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let bytesSent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed) return;
    socket.write(byte(bytesSent));
    bytesSent++;
  }, intervalMs);
  const answer = new Promise<RawAnswer>((resolve) => {
    socket.on('data', (c: Buffer) => chunks.push(c));
    // The server closes while the client still writes; the answer is what it sent before.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      const [rawHead = '', ...rest] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [statusLine = '', ...lines] = rawHead.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = rest.join('\r\n\r\n');
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: headers['transfer-encoding'] === 'chunked' ? dechunk(body) : body, bytesSent });
    });
  });
  socket.write(head);
  return { answer, abort: () => socket.destroy() };
}
