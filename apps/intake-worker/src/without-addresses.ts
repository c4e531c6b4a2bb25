/*
 * What a failed job's error may carry into BullMQ (its failedReason and
 * stacktrace, kept for the retry-failed command and the queue UI) and into
 * the worker's log: no e-mail address and no URL credentials. SMTP servers
 * quote the recipient ("550 5.1.1 <erika@example.org>: Recipient address
 * rejected"), nodemailer copies it into `response` and `rejected`, and a URL
 * given by a caller may hold `user:password@`. Errors are rebuilt from their
 * message, stack and the few fields an operator needs, each scrubbed.
 */

const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi;
const ANY_ADDRESS = /[^\s<>()[\]"',;:]+@[^\s<>()[\]"',;:]+/g;

/** The text with URL credentials and every e-mail address replaced. */
export function scrubAddresses(text: string): string {
  return text.replace(URL_USERINFO, '$1[credentials]@').replace(ANY_ADDRESS, '[address]');
}

/**
 * The error as BullMQ may store and the worker may log it: its name (which
 * BullMQ reads, e.g. UnrecoverableError), message and stack, the SMTP `code`,
 * `responseCode` and `command`, all scrubbed; nothing else (nodemailer's
 * `response`, `rejected` and `envelope` quote the recipient). `scrubMore`
 * removes what only the caller knows (a code it sent).
 */
export function withoutAddresses(err: unknown, scrubMore: (text: string) => string = (text) => text): Error {
  const scrub = (text: string) => scrubAddresses(scrubMore(text));
  const e = (err ?? {}) as { name?: unknown; message?: unknown; stack?: unknown; code?: unknown; responseCode?: unknown; command?: unknown };
  const safe = new Error(scrub(typeof e.message === 'string' ? e.message : String(err)));
  if (typeof e.name === 'string') safe.name = e.name;
  // The original frames say where it failed; its first line repeats the message.
  safe.stack = typeof e.stack === 'string' ? scrub(e.stack) : `${safe.name}: ${safe.message}`;
  if (typeof e.code === 'string') Object.assign(safe, { code: scrub(e.code) });
  if (typeof e.responseCode === 'number') Object.assign(safe, { responseCode: e.responseCode });
  if (typeof e.command === 'string') Object.assign(safe, { command: scrub(e.command) });
  return safe;
}
