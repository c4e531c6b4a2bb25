// @module `createClientErrorHandler({ publicBaseUrl })`: the `clientError` listener `listen` installs; requests Node's parser refuses get the envelope (400, 408, 413, 431) with `Connection: close` instead of a bare status line
// Node's HTTP parser refuses some requests before express sees them (an
// unknown method, a NUL byte in the path, 16 kB of headers, a request that
// never finishes) and by default answers with a bare status line. The API
// promises a JSON envelope on every error, so the answer is written here.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { API_VERSION, type ErrorCode } from '@msa/contracts';
import { buildEnvelope, type EnvelopeOptions } from './error-handler.js';

interface ParserError extends Error {
  code?: string;
}

const ANSWERS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'The request headers are larger than 16 kB.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request was not received in time.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['payload_too_large', 'The chunk extensions of the request body are too large.'],
};

/** What the client gets for a parser error: the envelope of a code from the registry. */
export function clientErrorAnswer(err: ParserError, opts: EnvelopeOptions): { status: number; body: string } {
  const [code, message] = ANSWERS[err.code ?? ''] ?? ['invalid_request', 'The request is not valid HTTP/1.1.'];
  const envelope = buildEnvelope(opts, code, message);
  return { status: envelope.error.status, body: JSON.stringify(envelope) };
}

/** A `clientError` listener for `http.Server` that answers in the error envelope, then closes. */
export function createClientErrorHandler(opts: EnvelopeOptions): (err: ParserError, socket: Duplex) => void {
  return (err, socket) => {
    // A peer that reset the connection, or a response already on its way
    // (a keep-alive socket mid-answer): nothing can be written that would help.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, body } = clientErrorAnswer(err, opts);
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      `API-Version: ${API_VERSION}`,
      'Connection: close',
    ].join('\r\n');
    socket.end(`${head}\r\n\r\n${body}`);
    // end() flushes, then closes; destroy anyway if the peer never reads.
    setTimeout(() => socket.destroy(), 1_000).unref();
  };
}
