// @module `bodyDeadline({ deadlineMs })`: a total time limit for receiving a request body (default `DEFAULT_BODY_DEADLINE_MS`, 15 s) that no byte resets, unlike Node's idle timers
// A total time limit for receiving a request body. body-parser's and Node's
// own timers are idle timers: each byte resets them, so a client sending one
// byte every few seconds holds the request (and whatever it pins) for as long
// as it likes. This clock starts with the request and no byte resets it.
import type { RequestHandler } from 'express';
import { sendError, type EnvelopeOptions } from './error-handler.js';

/** How long a request body may take to arrive in full, unless configured otherwise. */
export const DEFAULT_BODY_DEADLINE_MS = 15_000;

export interface BodyDeadlineOptions extends EnvelopeOptions {
  deadlineMs?: number;
}

/**
 * Middleware for requests with a body: when the whole body has not arrived
 * `deadlineMs` after the request began, answers 408 `request_timeout` in the
 * envelope and closes the connection once the answer is written, which also
 * ends the body parser still waiting for the rest. Mount it before the
 * parsers.
 */
export function bodyDeadline({ deadlineMs = DEFAULT_BODY_DEADLINE_MS, publicBaseUrl }: BodyDeadlineOptions): RequestHandler {
  const env = { publicBaseUrl };
  return (req, res, next) => {
    if (req.complete) return next();
    const timer = setTimeout(() => {
      if (req.complete || res.headersSent) return;
      req.log?.info({ deadlineMs }, 'request body not received within its deadline');
      res.once('finish', () => req.socket.destroy());
      sendError(res, env, 'request_timeout', `The request body did not arrive within ${deadlineMs / 1000} s.`, { headers: { Connection: 'close' } });
    }, deadlineMs);
    timer.unref();
    const stop = () => clearTimeout(timer);
    req.once('end', stop).once('close', stop);
    res.once('finish', stop);
    next();
  };
}
