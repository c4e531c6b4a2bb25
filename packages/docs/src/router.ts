import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { normalizeBaseUrl, type DocContext } from './context.js';
import {
  buildOnboarding,
  buildVersioningPolicy,
  renderAgentsMd,
  renderDevelopersHtml,
  renderDevelopersMarkdown,
  renderLlmsTxt,
  renderOnboardingMarkdown,
  renderServiceDocumentMarkdown,
  renderVersioningMarkdown,
} from './documents.js';
import { FAVICON_PATH, FAVICON_SVG, FAVICON_TYPE } from './favicon.js';
import { openApiFor, renderOpenApiMarkdown } from './openapi-document.js';
import { buildServiceDocument } from './service-document.js';

export interface DocsRouterOptions {
  /** PUBLIC_BASE_URL: the production base address every link starts with. */
  publicBaseUrl: string;
  /** `Cache-Control: max-age` of the documents; default 300 s. */
  maxAgeSeconds?: number;
}

/** The paths this router answers (GET and HEAD only); the gateway routes exactly these here. */
export const DOCUMENT_PATHS = ['/', '/openapi.json', '/llms.txt', '/agents.md', '/v1/versioning', '/v1/onboarding', '/v1/keys', '/developers'] as const;

/** Paths the router answers that are not documents (no Markdown form); the gateway routes these here too. */
export const ASSET_PATHS = [FAVICON_PATH] as const;

export const MARKDOWN = 'text/markdown; charset=utf-8';

type Kind = 'json' | 'html' | 'markdown';

interface Rendered {
  kind: Kind;
  body: string;
}

/** A document: its default representation and, where it differs, its Markdown. */
interface DocumentDef {
  path: (typeof DOCUMENT_PATHS)[number];
  primary: Exclude<Kind, 'markdown'> | 'markdown';
  render(ctx: DocContext, kind: Kind): string;
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

function documents(): DocumentDef[] {
  const onboarding: DocumentDef['render'] = (ctx, kind) =>
    kind === 'markdown' ? renderOnboardingMarkdown(ctx) : json(buildOnboarding(ctx));
  return [
    { path: '/', primary: 'json', render: (ctx, kind) => (kind === 'markdown' ? renderServiceDocumentMarkdown(ctx) : json(buildServiceDocument(ctx))) },
    { path: '/openapi.json', primary: 'json', render: (ctx, kind) => (kind === 'markdown' ? renderOpenApiMarkdown(ctx) : json(openApiFor(ctx))) },
    { path: '/llms.txt', primary: 'markdown', render: (ctx) => renderLlmsTxt(ctx) },
    { path: '/agents.md', primary: 'markdown', render: (ctx) => renderAgentsMd(ctx) },
    { path: '/v1/versioning', primary: 'json', render: (ctx, kind) => (kind === 'markdown' ? renderVersioningMarkdown(ctx) : json(buildVersioningPolicy(ctx))) },
    { path: '/v1/onboarding', primary: 'json', render: onboarding },
    { path: '/v1/keys', primary: 'json', render: onboarding },
    {
      path: '/developers',
      primary: 'html',
      render: (ctx, kind) => (kind === 'markdown' ? renderDevelopersMarkdown(ctx) : renderDevelopersHtml(ctx)),
    },
  ];
}

const CONTENT_TYPES: Record<Kind, string> = {
  json: 'application/json; charset=utf-8',
  html: 'text/html; charset=utf-8',
  markdown: MARKDOWN,
};

const MEDIA: Record<Kind, string> = { json: 'application/json', html: 'text/html', markdown: 'text/markdown' };

/**
 * Markdown when the caller asks for it at least as much as for the default
 * type (`Accept: text/markdown`); otherwise the default. An Accept header
 * that names neither still gets the default: documents are never a 406.
 */
export function wantsMarkdown(req: Request, primary: Kind): boolean {
  if (primary === 'markdown') return true;
  if (!req.headers.accept) return false;
  const best = req.accepts([MEDIA[primary], 'text/markdown']);
  return best === 'text/markdown';
}

function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

function notModified(req: Request, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
}

/**
 * Serves every document of the API without credentials: the service document,
 * OpenAPI, llms.txt, agents.md, versioning, onboarding and the developer
 * portal. Mount it at the root; for sandbox requests strip `/sandbox` from
 * `req.url` and set `res.locals.sandbox = true` first, and every API link in
 * the answer points at the sandbox. It also answers `/favicon.ico` (the
 * portal's icon). Anything else falls through to `next()`.
 */
export function createDocsRouter({ publicBaseUrl, maxAgeSeconds = 300 }: DocsRouterOptions): Router {
  const router = Router();
  const base = normalizeBaseUrl(publicBaseUrl);
  const cache = new Map<string, Rendered & { etag: string }>();

  for (const doc of documents()) {
    router.get(doc.path, (req: Request, res: Response) => {
      const sandbox = res.locals.sandbox === true;
      const ctx: DocContext = { publicBaseUrl: base, sandbox };
      const kind: Kind = wantsMarkdown(req, doc.primary) ? 'markdown' : doc.primary;
      const key = `${doc.path}|${sandbox}|${kind}`;
      let rendered = cache.get(key);
      if (!rendered) {
        const body = doc.render(ctx, kind);
        rendered = { kind, body, etag: etagOf(body) };
        cache.set(key, rendered);
      }
      const url = `${sandbox ? `${base}/sandbox` : base}${doc.path}`;
      res.setHeader('Vary', 'Accept');
      res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
      res.setHeader('ETag', rendered.etag);
      if (doc.primary !== 'markdown') {
        res.setHeader(
          'Link',
          kind === 'markdown'
            ? `<${url}>; rel="alternate"; type="${MEDIA[doc.primary]}"`
            : `<${url}>; rel="alternate"; type="text/markdown"`,
        );
      }
      if (notModified(req, rendered.etag)) return void res.status(304).end();
      res.status(200).setHeader('Content-Type', CONTENT_TYPES[kind]);
      res.send(rendered.body);
    });
  }

  const faviconEtag = etagOf(FAVICON_SVG);
  router.get(FAVICON_PATH, (req: Request, res: Response) => {
    // A day: the icon changes with a release at most, and every visit asks for it.
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('ETag', faviconEtag);
    if (notModified(req, faviconEtag)) return void res.status(304).end();
    res.status(200).setHeader('Content-Type', FAVICON_TYPE);
    res.send(FAVICON_SVG);
  });
  return router;
}
