// Refused bodies close. An answer written while a large body is still
// arriving (a refusal decided from the headers: 401, 403, 429, 413, 415…)
// says `Connection: close` and ends the connection once written. Node would
// otherwise read and discard the rest of the body to keep the connection for
// another request, and a client trickling a large body would hold its socket,
// and the gateway's memory with it, until the request timeout (25 s by
// default). A small rest is still read to its end and the connection kept.
//
// The close lingers: the answer and a FIN go out, what the client still
// sends is read and dropped for up to LINGER_MS, then the socket is
// destroyed. Destroying at once would answer the client's next bytes with a
// reset, which can discard the answer in its receive buffer unread.
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { ErrorRequestHandler } from 'express';

/** The most of a body still to arrive that is read and discarded to keep the connection. */
export const DRAIN_MAX_BYTES = 4 * 1024;

/** How long a connection closed after a refusal still reads what the client sends. */
export const LINGER_MS = 1_000;

/** Node ends a `Connection: close` answer's socket with destroySoon: here it lingers instead. */
function lingerThenDestroy(this: Socket): void {
  this.end();
  const timer = setTimeout(() => this.destroy(), LINGER_MS);
  timer.unref();
  this.once('close', () => clearTimeout(timer));
}

/** More than {@link DRAIN_MAX_BYTES} of the body, or an unknown amount (chunked), has yet to arrive. */
function largeBodyArriving(req: IncomingMessage): boolean {
  if (req.complete) return false;
  if (req.headers['transfer-encoding'] !== undefined) return true;
  // What the parser received and nobody read yet is buffered on the request.
  return Number(req.headers['content-length'] ?? 0) - req.readableLength > DRAIN_MAX_BYTES;
}

/**
 * True when the answer about to be written must close the connection, since
 * a large body is still arriving; its socket then lingers once the answer is
 * written. The caller adds `Connection: close` to the answer.
 */
export function closesConnection(req: IncomingMessage): boolean {
  if (!largeBodyArriving(req)) return false;
  (req.socket as Socket & { destroySoon: () => void }).destroySoon = lingerThenDestroy;
  return true;
}

/** Before the error handler: a refusal answered while a large body is arriving closes the connection. */
export function closeRefusedBodies(): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (!res.headersSent && closesConnection(req)) res.setHeader('Connection', 'close');
    next(err);
  };
}
