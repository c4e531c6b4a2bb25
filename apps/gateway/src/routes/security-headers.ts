// helmet's headers as one list made at start. helmet runs its 13 header
// middlewares on every request and rebuilds the same values each time; for
// options without per-request parts (no CSP nonce functions) the answer never
// changes, so it is recorded once, from helmet itself, and replayed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/** `extra` headers (constant for every answer) join the same list, so they cost no middleware of their own. */
export function securityHeaders(options: HelmetOptions, extra: Record<string, string> = {}): RequestHandler {
  const set: Array<[string, string]> = Object.entries(extra);
  const removed: string[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      set.push([name, String(value)]);
    },
    removeHeader(name: string) {
      removed.push(name);
    },
  };
  let done = false;
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (err?: unknown) => {
    if (err) throw err;
    done = true;
  });
  if (!done) throw new Error('helmet did not finish synchronously; its headers cannot be recorded once');
  return (_req, res, next) => {
    for (const name of removed) res.removeHeader(name);
    for (const [name, value] of set) res.setHeader(name, value);
    next();
  };
}
