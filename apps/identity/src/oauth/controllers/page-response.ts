// How the OAuth flow answers a browser: its pages with their security
// headers, its error pages, and the error envelope instead for a caller that
// asks for JSON.
import { appError } from '@msa/service-kit';
import type { Request, Response } from 'express';
import { renderErrorPage, renderTooManyPage, type Lang, type PageProblem, type TooMany } from '../pages/consent-page.js';
import type { AuthorizationErrorCode } from '../rules/authorization-request.js';
import { pageHeaders } from '../rules/page-security.js';

export function setPageHeaders(res: Response, formTarget?: string): void {
  for (const [name, value] of Object.entries(pageHeaders(formTarget))) res.setHeader(name, value);
}

export function sendPage(res: Response, status: number, html: string, formTarget?: string): void {
  setPageHeaders(res, formTarget);
  res.status(status).type('text/html; charset=utf-8').send(html);
}

export function errorPage(res: Response, lang: Lang, status: number, problem: PageProblem, detail?: string): void {
  sendPage(res, status, renderErrorPage(lang, problem, detail));
}

/** The 429 page, with Retry-After in whole seconds, at least one. */
export function tooManyPage(res: Response, lang: Lang, reason: TooMany, retryAfterSeconds: number, switchHref: string): void {
  const retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
  res.setHeader('Retry-After', String(retryAfter));
  sendPage(res, 429, renderTooManyPage(lang, reason, retryAfter, switchHref));
}

/**
 * An authorization request that ends here: our error page for a browser, the
 * error envelope for a caller that asks for JSON (`Accept: application/json`).
 */
export function refuse(req: Request, res: Response, lang: Lang, problem: PageProblem, code: AuthorizationErrorCode, detail: string): void {
  if (wantsJson(req)) throw appError(code, detail);
  errorPage(res, lang, 400, problem, detail);
}

export function wantsJson(req: Request): boolean {
  return req.accepts(['html', 'json']) === 'json';
}

/** RFC 6749 §5.1: token responses are never cached. */
export function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}
