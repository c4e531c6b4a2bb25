// Receives a request body before it is proxied, so that no connection to a
// service is taken while a client is still sending: a client trickling its
// body one byte at a time would otherwise hold one of the pool's sockets for
// as long as it kept trickling. The bytes are kept as they arrived and
// handed to the proxy as a stream of their own (bodyStream), which it sends
// unchanged once a socket to the service is free (service-proxy.ts).
//
// A body larger than the services accept (BOUNDS.bodyMaxBytes) is refused
// with 413 when its Content-Length says so; a chunked one that grows past it
// is streamed on from where the reading stopped, and the service refuses it
// at once (413, or 415 for a type it does not take).
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import { appError, declareRequestFields } from '@msa/service-kit';
import type { Request } from 'express';

const PEEKED = Symbol('peekedBody');
declareRequestFields(PEEKED);

interface Received {
  bytes: Buffer;
  /** The whole body: the stream has ended. False when reading stopped at the size bound. */
  complete: boolean;
}

export interface ReceiveOptions {
  /** Read at most this many bytes; the services' own body bound. */
  maxBytes: number;
  /** A client that sends nothing for this long gets 408. */
  idleMs: number;
  /** The whole body must arrive within this, however steadily it trickles; 408 past it. */
  deadlineMs: number;
}

type Tagged = IncomingMessage & { [PEEKED]?: Received };

/**
 * The body {@link receiveBody} read, as the stream the proxy sends: its bytes,
 * then the rest of the request when reading stopped at the size bound.
 * Undefined when nothing was read, and the request itself is the body.
 */
export function bodyStream(req: IncomingMessage): Readable | undefined {
  const received = (req as Tagged)[PEEKED];
  if (!received) return undefined;
  const stream = new PassThrough();
  if (received.complete) stream.end(received.bytes);
  else {
    stream.write(received.bytes);
    req.pipe(stream);
  }
  return stream;
}

function declaresBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * The request declares a body that is still arriving. One that arrived
 * whole (with its headers, as small bodies do) streams to the service at once.
 */
export function awaitsBody(req: IncomingMessage): boolean {
  return !(req as Tagged)[PEEKED] && !req.complete && declaresBody(req);
}

const timeout = (message: string) => appError('request_timeout', message, { headers: { Connection: 'close' } });

function readUpTo(req: IncomingMessage, { maxBytes, idleMs, deadlineMs }: ReceiveOptions): Promise<Received> {
  return new Promise<Received>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const idle = setTimeout(() => fail(timeout(`No part of the request body arrived for ${idleMs / 1000} s.`)), idleMs);
    const deadline = setTimeout(() => fail(timeout(`The request body did not arrive within ${deadlineMs / 1000} s.`)), deadlineMs);
    const onData = (chunk: Buffer) => {
      idle.refresh();
      chunks.push(chunk);
      size += chunk.length;
      if (size <= maxBytes) return;
      // Past the bound: the rest streams to the service, which refuses it.
      cleanup();
      req.pause();
      resolve({ bytes: Buffer.concat(chunks), complete: false });
    };
    const onEnd = () => {
      cleanup();
      resolve({ bytes: Buffer.concat(chunks), complete: true });
    };
    const onClose = () => fail(timeout('The client closed the connection before the body arrived.'));
    const fail = (err: Error) => {
      cleanup();
      reject(err);
    };
    const cleanup = () => {
      clearTimeout(idle);
      clearTimeout(deadline);
      req.off('data', onData).off('end', onEnd).off('error', fail).off('close', onClose);
    };
    req.on('data', onData).once('end', onEnd).once('error', fail).once('close', onClose);
  });
}

/**
 * Reads the request's body into memory for the proxy, once: undefined for a
 * request without one. 413 when its Content-Length is past `maxBytes`, 408
 * (and the connection closed) when the client pauses for `idleMs` or has not
 * sent it all `deadlineMs` after the reading began.
 */
export async function receiveBody(req: Request, options: ReceiveOptions): Promise<Received | undefined> {
  const tagged = req as Tagged;
  if (tagged[PEEKED]) return tagged[PEEKED];
  if (!declaresBody(req) || req.readableEnded) return undefined;
  const length = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] === undefined && Number.isFinite(length) && length > options.maxBytes) {
    throw appError('payload_too_large', `The request body is larger than ${options.maxBytes / 1024} kB.`, { headers: { Connection: 'close' } });
  }
  const received = await readUpTo(req, options);
  tagged[PEEKED] = received;
  return received;
}
