// The MCP body rules, on POST /mcp: the gateway reads the body (it reads
// every body before proxying, see routes/peek-body.ts) and
// - charges each message of a JSON-RPC batch as one request (`x.cost`), so a
//   batch costs what it carries: 100 searches in one POST are 100 requests;
// - charges an `initialize`, `notifications/initialized` or
//   `server/discover` to its own `mcp-handshake` bucket instead of the
//   caller's minute, so a client that connects often does not spend its
//   budget on hellos (domain/mcp-handshake.ts says which bodies are
//   handshakes).
// The mcp service parses any content type as JSON and inflates compressed
// bodies, so both are read here the same way; the bytes go on unchanged.
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { WindowLimiter } from '@msa/service-kit/limits';
import { isMcpHandshake, messageCount } from '../domain/mcp-handshake.js';
import { receiveBody, type ReceiveOptions } from '../routes/peek-body.js';
import type { Bucket, Handoff, Next, Stage, View } from './exchange.js';

/** What mcp-handshake reads of the exchange and writes for the stages after it. */
export const MCP_HANDSHAKE_HANDOFF = { reads: ['route'], writes: ['bucket', 'cost'] } as const satisfies Handoff;

export interface McpHandshakeOptions {
  /** Without one, handshakes count as ordinary requests. */
  limiter?: WindowLimiter;
  /** How the body is received (its bound, the client's pauses and the deadline). */
  body: ReceiveOptions;
}

const INFLATE: Record<string, (bytes: Buffer, options: { maxOutputLength: number }) => Buffer> = {
  identity: (bytes) => bytes,
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** The parsed JSON-RPC body as the mcp service will see it, or undefined for what it will refuse anyway. */
function parseBody(bytes: Buffer, encoding: string | undefined, maxBytes: number): unknown {
  const inflate = INFLATE[(encoding ?? 'identity').trim().toLowerCase()];
  if (!inflate) return undefined;
  try {
    return JSON.parse(inflate(bytes, { maxOutputLength: maxBytes }).toString('utf8'));
  } catch {
    return undefined;
  }
}

export function createMcpHandshakeStage({ limiter, body }: McpHandshakeOptions): Stage<View<typeof MCP_HANDSHAKE_HANDOFF>> {
  const handshakes: Bucket | null = limiter
    ? {
        limiter,
        refusal: (principal) => ({
          message: `More than ${limiter.points} MCP handshakes (initialize, notifications/initialized, server/discover) in a minute ${principal ? 'with these credentials' : 'from this address'}.`,
        }),
      }
    : null;

  async function charge(x: View<typeof MCP_HANDSHAKE_HANDOFF>, next: Next<View<typeof MCP_HANDSHAKE_HANDOFF>>): Promise<void> {
    const received = await receiveBody(x.req, body);
    // A body past the bound is refused by the service unread.
    const message = received?.complete ? parseBody(received.bytes, x.req.headers['content-encoding'], body.maxBytes) : undefined;
    x.cost = messageCount(message);
    if (handshakes && isMcpHandshake(message)) x.bucket = handshakes;
    return next(x);
  }

  // Every other request hands on at once, without a promise of its own.
  return (x, next) => (x.route.target !== 'mcp' || x.req.method !== 'POST' ? next(x) : charge(x, next));
}
