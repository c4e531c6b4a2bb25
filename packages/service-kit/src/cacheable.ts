// @module `sendCacheable(req, res, body)`: strong ETag of the exact bytes, `Cache-Control`, 304 on a matching `If-None-Match`
// Conditional GET for the read resources, so an agent that polls sends back
// the ETag and gets an empty 304 while nothing changed. The ETag is strong:
// a hash of the exact bytes sent. Bodies are deterministic for one loaded copy
// (`generated_at` is when that copy was loaded, not the time of the request),
// so the ETag only moves when the content does.
import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';

export interface CacheableOptions {
  contentType?: string;
  maxAgeSeconds?: number;
}

export function strongEtag(payload: string): string {
  return `"${createHash('sha256').update(payload).digest('base64url').slice(0, 32)}"`;
}

/** RFC 9110 §13.1.2: If-None-Match compares weakly, so a `W/` prefix still matches; `*` matches anything. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** A body serialized once with its ETag, for answers that are sent again and again. */
export interface PreparedBody {
  payload: string;
  etag: string;
  /** The payload's UTF-8 bytes, for a body sent many times: encoded once instead of by every send. */
  bytes?: Buffer;
}

export function prepareBody(body: unknown): PreparedBody {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return { payload, etag: strongEtag(payload) };
}

export function sendCacheable(req: Request, res: Response, body: unknown, opts: CacheableOptions = {}): void {
  sendPrepared(req, res, prepareBody(body), opts);
}

const DEFAULT_CACHE_CONTROL = 'public, max-age=60';

/** What `res.type(t)` writes for each content type the code sends, and whether it names UTF-8 (worked out once per type). */
const typeHeaders = new Map<string, { header: string; utf8: boolean }>();

function setType(res: Response, contentType: string): { header: string; utf8: boolean } | undefined {
  const known = typeHeaders.get(contentType);
  if (known) {
    res.setHeader('Content-Type', known.header);
    return known;
  }
  res.type(contentType);
  const header = res.getHeader('Content-Type');
  if (typeof header !== 'string') return undefined;
  const type = { header, utf8: header.endsWith('; charset=utf-8') };
  typeHeaders.set(contentType, type);
  return type;
}

/** `sendCacheable` for a body prepared earlier with `prepareBody`. */
export function sendPrepared(req: Request, res: Response, { payload, etag, bytes }: PreparedBody, opts: CacheableOptions = {}): void {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', opts.maxAgeSeconds === undefined ? DEFAULT_CACHE_CONTROL : `public, max-age=${opts.maxAgeSeconds}`);
  if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  const type = setType(res, opts.contentType ?? 'application/json');
  // express sends a string as UTF-8 and adds that charset to the type; bytes
  // encoded earlier are the same answer where the type names it already.
  res.send(bytes && type?.utf8 ? bytes : payload);
}
