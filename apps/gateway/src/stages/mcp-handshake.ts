// The MCP handshake rule: on POST /mcp, an `initialize`,
// `notifications/initialized` or `server/discover` counts in its own
// `mcp-handshake` bucket instead of the caller's minute, so a client that
// connects often does not spend its budget on hellos
// (domain/mcp-handshake.ts says which bodies are handshakes). Only small
// JSON bodies are read; the bytes go to the service unchanged.
import type { WindowLimiter } from '@msa/service-kit/limits';
import { HANDSHAKE_PEEK_MAX_BYTES, isMcpHandshake } from '../domain/mcp-handshake.js';
import { peekJsonBody } from '../routes/peek-body.js';
import type { Bucket, Stage } from './exchange.js';

export interface McpHandshakeOptions {
  /** Without one, handshakes count as ordinary requests. */
  limiter?: WindowLimiter;
  /** A client pausing this long while the body is read gets 408, as from the proxy. */
  clientBodyTimeoutMs: number;
}

export function createMcpHandshakeStage({ limiter, clientBodyTimeoutMs }: McpHandshakeOptions): Stage {
  if (!limiter) return (x, next) => next(x);
  const handshakes: Bucket = {
    limiter,
    refusal: (principal) => ({
      message: `More than ${limiter.points} MCP handshakes (initialize, notifications/initialized, server/discover) in a minute ${principal ? 'with these credentials' : 'from this address'}.`,
    }),
  };

  return (x, next) => {
    if (x.route.target !== 'mcp' || x.req.method !== 'POST') return next(x);
    return peekJsonBody(x.req, HANDSHAKE_PEEK_MAX_BYTES, clientBodyTimeoutMs).then((body) => {
      if (isMcpHandshake(body)) x.bucket = handshakes;
      return next(x);
    });
  };
}
