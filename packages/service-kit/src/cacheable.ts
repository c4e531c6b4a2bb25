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
}

export function prepareBody(body: unknown): PreparedBody {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return { payload, etag: strongEtag(payload) };
}

export function sendCacheable(req: Request, res: Response, body: unknown, opts: CacheableOptions = {}): void {
  sendPrepared(req, res, prepareBody(body), opts);
}

/** `sendCacheable` for a body prepared earlier with `prepareBody`. */
export function sendPrepared(req: Request, res: Response, { payload, etag }: PreparedBody, opts: CacheableOptions = {}): void {
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', `public, max-age=${opts.maxAgeSeconds ?? 60}`);
  if (matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  res.type(opts.contentType ?? 'application/json').send(payload);
}
