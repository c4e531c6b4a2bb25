// @module The fields every service adds to express's `Request`: `id`, `traceparent`, `log`, `ctx`
import type { CallContext } from '@msa/contracts';
import type { Logger } from 'pino';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request id: the caller's X-Request-Id or a new one. */
      id: string;
      /** W3C traceparent of this request (kept from the caller or new). */
      traceparent: string;
      /** Logger with service, requestId and traceId on every line. */
      log: Logger;
      /** Who calls and how (set by internal auth). */
      ctx: CallContext;
    }
  }
}

export {};
