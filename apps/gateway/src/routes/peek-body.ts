// Reads a small request body before it is proxied, for the one decision the
// gateway takes on a body (is this POST /mcp an MCP handshake?). The bytes
// are kept as they arrived and written to the service unchanged by the proxy;
// a body that is large, chunked, compressed or not JSON is never read here and
// streams through as before.
import type { IncomingMessage } from 'node:http';
import { appError } from '@msa/service-kit';
import type { Request } from 'express';

const PEEKED = Symbol('peekedBody');

/** The bytes read by {@link peekJsonBody}, for the proxy to send on. */
export function peekedBody(req: IncomingMessage): Buffer | undefined {
  return (req as unknown as Record<symbol, Buffer | undefined>)[PEEKED];
}

/**
 * The parsed JSON body when it is at most `maxBytes` long by its
 * Content-Length, else undefined (also for JSON that does not parse: the
 * service answers that). A client that stops sending for `idleMs` gets 408,
 * as it would from the proxy.
 */
export async function peekJsonBody(req: Request, maxBytes: number, idleMs: number): Promise<unknown> {
  const length = Number(req.headers['content-length']);
  if (!Number.isInteger(length) || length <= 0 || length > maxBytes) return undefined;
  if (req.headers['transfer-encoding'] !== undefined || req.headers['content-encoding'] !== undefined) return undefined;
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(req.headers['content-type'] ?? '')) return undefined;

  const bytes = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const idle = setTimeout(() => {
      cleanup();
      reject(appError('request_timeout', `No part of the request body arrived for ${idleMs / 1000} s.`, { headers: { Connection: 'close' } }));
    }, idleMs);
    const onData = (chunk: Buffer) => {
      idle.refresh();
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onClose = () => {
      cleanup();
      reject(appError('request_timeout', 'The client closed the connection before the body arrived.', { headers: { Connection: 'close' } }));
    };
    const cleanup = () => {
      clearTimeout(idle);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    req.on('data', onData).once('end', onEnd).once('error', onError).once('close', onClose);
  });
  (req as unknown as Record<symbol, Buffer>)[PEEKED] = bytes;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
