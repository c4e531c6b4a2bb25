// Connections per address: how many sockets one peer address (IPv6: its
// prefix, as the per-address limits count it) may hold open to this gateway
// process at once. An open connection costs memory whether or not a request
// arrives on it, and the request caps (in flight, per minute) count nothing
// until one does: one address holding thousands of idle or trickling
// connections grew the process and slowed every caller's answers.
//
// Counted by the socket's own address, which is what holds the socket,
// whatever X-Forwarded-For says. Behind a proxy that address is the proxy's,
// so the cap must stay above the connections the proxy keeps to one replica.
// Past the cap the new connection gets 429 in the envelope and is closed
// before a request is read from it.
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { API_VERSION } from '@msa/contracts';
import { buildEnvelope, limitKeyOfAddress, type Metrics } from '@msa/service-kit';

/** Connections one address may hold open unless configured otherwise (CONNECTIONS_PER_ADDRESS). */
export const DEFAULT_CONNECTIONS_PER_ADDRESS = 512;

export interface ConnectionCapOptions {
  /** Connections one address may hold open at once. */
  perAddress: number;
  /** The IPv6 prefix length counted as one address. */
  ipv6Prefix?: number;
  publicBaseUrl: string;
  /** Counts the connections refused. */
  refused?: ReturnType<Metrics['counter']>;
}

export interface ConnectionCap {
  /** Connections open under an address key (limitKeyOfAddress), for tests. */
  openFrom(addressKey: string): number;
}

/** The answer of a refused connection, written once. */
function refusal(perAddress: number, publicBaseUrl: string): Buffer {
  const envelope = buildEnvelope({ publicBaseUrl }, 'rate_limited', `More than ${perAddress} connections at once from this address.`, {
    hint: 'Reuse a few keep-alive connections instead of opening more.',
  });
  const body = JSON.stringify(envelope);
  const head = [
    `HTTP/1.1 429 ${STATUS_CODES[429]}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    `API-Version: ${API_VERSION}`,
    'Retry-After: 1',
    'Connection: close',
  ].join('\r\n');
  return Buffer.from(`${head}\r\n\r\n${body}`);
}

export function capConnectionsPerAddress(server: Server, { perAddress, ipv6Prefix, publicBaseUrl, refused }: ConnectionCapOptions): ConnectionCap {
  const open = new Map<string, number>();
  const answer = refusal(perAddress, publicBaseUrl);

  server.on('connection', (socket: Socket) => {
    const key = limitKeyOfAddress(socket.remoteAddress ?? 'unknown', { ipv6Prefix });
    const count = open.get(key) ?? 0;
    if (count >= perAddress) {
      refused?.inc();
      // A new socket's send buffer is empty, so the answer leaves at once;
      // destroying it in the same tick means no request is ever read from it.
      socket.end(answer);
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });

  return { openFrom: (addressKey) => open.get(addressKey) ?? 0 };
}
