import { createHash } from 'node:crypto';
import { pageLanguageOf } from '@msa/contracts';
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
import { buildAgentSkillsIndex, isAgentSkillName, renderAgentSkill } from './agent-skills.js';
import { API_CATALOG_TYPE, apiCatalogSelfLink, buildApiCatalog, entryPointLinks } from './api-catalog.js';
import { DEFAULT_CONTENT_SIGNAL, parseContentSignal, renderRobotsTxt, renderSitemapXml, type ContentSignal } from './crawling.js';
import { FAVICON_PATH, FAVICON_SVG, FAVICON_TYPE } from './favicon.js';
import { SERVER_CARD_TYPE, buildMcpCatalog, buildMcpServerCard, buildRegistryServerJson } from './mcp-server-card.js';
import { openApiFor, renderOpenApiMarkdown } from './openapi-document.js';
import { buildServiceDocument } from './service-document.js';
import { developmentLegalInfo, type LegalInfo } from './legal/legal-config.js';
import { LEGAL_PAGES, renderLegalHtml, renderLegalMarkdown } from './legal/legal-pages.js';

export interface DocsRouterOptions {
  /** PUBLIC_BASE_URL: the production base address every link starts with. */
  publicBaseUrl: string;
  /** `Cache-Control: max-age` of the documents; default 300 s. */
  maxAgeSeconds?: number;
  /** robots.txt's `Content-Signal` (`search=yes, ai-input=yes, ai-train=no` by default); a bad one throws here, at start. */
  contentSignal?: string | ContentSignal;
  /** The MCP Registry's domain proof (`v=MCPv1; k=…; p=…`); without it `/.well-known/mcp-registry-auth` is a 404. */
  mcpRegistryAuth?: string;
  /** OpenAI's domain verification token for the ChatGPT apps directory; without it `/.well-known/openai-apps-challenge` is a 404. */
  openaiAppsChallenge?: string;
  /** The operator's details for the privacy notice, terms and imprint (`resolveLegalInfo`); the development defaults when left out. */
  legal?: LegalInfo;
}

/** The paths this router answers (GET and HEAD only); the gateway routes exactly these here. */
export const DOCUMENT_PATHS = ['/', '/openapi.json', '/llms.txt', '/agents.md', '/v1/versioning', '/v1/onboarding', '/v1/keys', '/developers'] as const;

/** The legal pages: HTML or Markdown, each in German or English by `Accept-Language` (or `?lang=`). */
export const LEGAL_PATHS = LEGAL_PAGES.map((page) => `/${page}` as const);

/** Paths the router answers that are not documents (no Markdown form); the gateway routes these here too. */
export const ASSET_PATHS = [FAVICON_PATH] as const;

/**
 * The discovery documents (one representation each, in the operation table's
 * path form): crawling rules, the API catalog, the MCP server cards and
 * catalogs, the MCP Registry entry and proof, the agent skills.
 */
export const DISCOVERY_PATHS = [
  '/robots.txt',
  '/sitemap.xml',
  '/.well-known/api-catalog',
  '/mcp/server-card',
  '/.well-known/mcp/server-card.json',
  '/.well-known/mcp.json',
  '/.well-known/mcp/catalog.json',
  '/.well-known/ai-catalog.json',
  '/server.json',
  '/.well-known/mcp-registry-auth',
  '/.well-known/openai-apps-challenge',
  '/.well-known/agent-skills/index.json',
  '/.well-known/agent-skills/{name}/SKILL.md',
] as const;

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

/** The pages whose `Link` field names the OpenAPI document, the portal, the API catalog and the agent instructions. */
const ENTRY_POINTS = new Set<string>(['/', '/developers']);

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
 * portal's icon) and the discovery documents of `DISCOVERY_PATHS`, which
 * describe both environments and so ignore the sandbox flag, except the MCP
 * server card. Anything else falls through to `next()`, as do an unknown
 * skill and the registry proof of a deployment that has none.
 */
export function createDocsRouter({ publicBaseUrl, maxAgeSeconds = 300, contentSignal, mcpRegistryAuth, openaiAppsChallenge, legal = developmentLegalInfo() }: DocsRouterOptions): Router {
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
        const alternateType = kind === 'markdown' ? MEDIA[doc.primary] : 'text/markdown';
        // The entry points also point at everything an agent looks for first (RFC 8288, RFC 9727 §3).
        res.setHeader(
          'Link',
          ENTRY_POINTS.has(doc.path)
            ? entryPointLinks(ctx, { url, alternateType })
            : `<${url}>; rel="alternate"; type="${alternateType}"`,
        );
      }
      if (notModified(req, rendered.etag)) return void res.status(304).end();
      res.status(200).setHeader('Content-Type', CONTENT_TYPES[kind]);
      res.send(rendered.body);
    });
  }

  for (const page of LEGAL_PAGES) {
    router.get(`/${page}`, (req: Request, res: Response) => {
      const sandbox = res.locals.sandbox === true;
      const ctx: DocContext = { publicBaseUrl: base, sandbox };
      const kind: Kind = wantsMarkdown(req, 'html') ? 'markdown' : 'html';
      const lang = pageLanguageOf(req.query.lang, req.get('accept-language'));
      const key = `/${page}|${sandbox}|${kind}|${lang}`;
      let rendered = cache.get(key);
      if (!rendered) {
        const body = kind === 'markdown' ? renderLegalMarkdown(page, ctx, legal, lang) : renderLegalHtml(page, ctx, legal, lang);
        rendered = { kind, body, etag: etagOf(body) };
        cache.set(key, rendered);
      }
      const url = `${sandbox ? `${base}/sandbox` : base}/${page}`;
      res.setHeader('Vary', 'Accept, Accept-Language');
      res.setHeader('Content-Language', lang);
      res.setHeader('Cache-Control', `public, max-age=${maxAgeSeconds}`);
      res.setHeader('ETag', rendered.etag);
      res.setHeader('Link', `<${url}>; rel="alternate"; type="${kind === 'markdown' ? 'text/html' : 'text/markdown'}"`);
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

  serveDiscovery(router, { base, maxAgeSeconds, cache, contentSignal: parseSignal(contentSignal), mcpRegistryAuth, openaiAppsChallenge });
  return router;
}

function parseSignal(signal: string | ContentSignal | undefined): ContentSignal {
  if (signal === undefined) return parseContentSignal(DEFAULT_CONTENT_SIGNAL);
  return typeof signal === 'string' ? parseContentSignal(signal) : signal;
}

interface Discovery {
  base: string;
  maxAgeSeconds: number;
  cache: Map<string, Rendered & { etag: string }>;
  contentSignal: ContentSignal;
  mcpRegistryAuth: string | undefined;
  openaiAppsChallenge: string | undefined;
}

/** A discovery document: one media type, rendered for production unless `mirrored`. */
interface DiscoveryDoc {
  path: string;
  type: string;
  /** True for the one document that has a sandbox copy (`/sandbox/mcp/server-card`). */
  mirrored?: boolean;
  /** Public metadata read by browser-based clients too (the server card draft requires CORS). */
  cors?: boolean;
  render(ctx: DocContext): string;
  headers?(ctx: DocContext): Record<string, string>;
}

const JSON_TYPE = CONTENT_TYPES.json;

function discoveryDocuments(d: Discovery): DiscoveryDoc[] {
  const card = (ctx: DocContext) => json(buildMcpServerCard(ctx));
  const catalog = (ctx: DocContext) => json(buildMcpCatalog(ctx));
  return [
    { path: '/robots.txt', type: 'text/plain; charset=utf-8', render: (ctx) => renderRobotsTxt(ctx, { contentSignal: d.contentSignal }) },
    { path: '/sitemap.xml', type: 'application/xml; charset=utf-8', render: (ctx) => renderSitemapXml(ctx) },
    {
      path: '/.well-known/api-catalog',
      type: API_CATALOG_TYPE,
      cors: true,
      render: (ctx) => json(buildApiCatalog(ctx)),
      headers: (ctx) => ({ Link: apiCatalogSelfLink(ctx) }),
    },
    { path: '/mcp/server-card', type: SERVER_CARD_TYPE, mirrored: true, cors: true, render: card },
    { path: '/.well-known/mcp/server-card.json', type: JSON_TYPE, cors: true, render: card },
    { path: '/.well-known/mcp.json', type: JSON_TYPE, cors: true, render: card },
    { path: '/.well-known/mcp/catalog.json', type: JSON_TYPE, cors: true, render: catalog },
    { path: '/.well-known/ai-catalog.json', type: 'application/ai-catalog+json', cors: true, render: catalog },
    { path: '/server.json', type: JSON_TYPE, cors: true, render: (ctx) => json(buildRegistryServerJson(ctx.publicBaseUrl)) },
    { path: '/.well-known/agent-skills/index.json', type: JSON_TYPE, cors: true, render: (ctx) => json(buildAgentSkillsIndex(ctx)) },
  ];
}

function serveDiscovery(router: Router, d: Discovery): void {
  const send = (req: Request, res: Response, doc: Pick<DiscoveryDoc, 'path' | 'type' | 'cors' | 'headers'>, ctx: DocContext, body: () => string) => {
    const key = `${doc.path}|${ctx.sandbox}`;
    let rendered = d.cache.get(key);
    if (!rendered) {
      const text = body();
      rendered = { kind: 'json', body: text, etag: etagOf(text) };
      d.cache.set(key, rendered);
    }
    res.setHeader('Cache-Control', `public, max-age=${d.maxAgeSeconds}`);
    res.setHeader('ETag', rendered.etag);
    if (doc.cors) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD');
      res.setHeader('Access-Control-Allow-Headers', 'Content-Type, If-None-Match');
      res.setHeader('Access-Control-Expose-Headers', 'ETag');
    }
    for (const [name, value] of Object.entries(doc.headers?.(ctx) ?? {})) res.setHeader(name, value);
    if (notModified(req, rendered.etag)) return void res.status(304).end();
    res.status(200).setHeader('Content-Type', doc.type);
    res.send(rendered.body);
  };

  for (const doc of discoveryDocuments(d)) {
    router.get(doc.path, (req, res) => {
      const ctx: DocContext = { publicBaseUrl: d.base, sandbox: doc.mirrored === true && res.locals.sandbox === true };
      send(req, res, doc, ctx, () => doc.render(ctx));
    });
  }

  const production: DocContext = { publicBaseUrl: d.base, sandbox: false };
  router.get('/.well-known/agent-skills/:name/SKILL.md', (req, res, next) => {
    const name = req.params.name;
    if (typeof name !== 'string' || !isAgentSkillName(name)) return next();
    send(req, res, { path: `/.well-known/agent-skills/${name}/SKILL.md`, type: MARKDOWN, cors: true }, production, () => renderAgentSkill(name, production));
  });

  router.get('/.well-known/mcp-registry-auth', (req, res, next) => {
    if (!d.mcpRegistryAuth) return next();
    // The registry fetches this with Accept: text/plain, follows no redirect and ignores surrounding whitespace.
    send(req, res, { path: '/.well-known/mcp-registry-auth', type: 'text/plain; charset=utf-8' }, production, () => `${d.mcpRegistryAuth!.trim()}\n`);
  });

  router.get('/.well-known/openai-apps-challenge', (req, res, next) => {
    if (!d.openaiAppsChallenge) return next();
    // OpenAI compares the body with the token its dashboard shows: the token alone, no newline after it.
    send(req, res, { path: '/.well-known/openai-apps-challenge', type: 'text/plain; charset=utf-8' }, production, () => d.openaiAppsChallenge!.trim());
  });
}
