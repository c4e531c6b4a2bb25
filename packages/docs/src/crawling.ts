// robots.txt and sitemap.xml: what crawlers may read, what the content may be
// used for, and which documents exist. The paths come from the operation
// table; the usage preferences from one deployment setting (CONTENT_SIGNAL on
// the gateway), written in both vocabularies crawlers read today.
import { OPERATIONS, PRODUCT_NAME, type OperationDef, type RouteId } from '@msa/contracts';
import { docUrls, operationHref, requireOperation, type DocContext } from './context.js';

/** The three Content-Signal categories (contentsignals.org). */
export const CONTENT_SIGNAL_KEYS = ['search', 'ai-input', 'ai-train'] as const;
export type ContentSignalKey = (typeof CONTENT_SIGNAL_KEYS)[number];
export type ContentSignal = Partial<Record<ContentSignalKey, boolean>>;

export const DEFAULT_CONTENT_SIGNAL = 'search=yes, ai-input=yes, ai-train=no';

/**
 * Parses `search=yes, ai-input=yes, ai-train=no`: known keys, `yes` or `no`,
 * each at most once. Throws with the offending part, so a deployment with a
 * typo stops at start instead of publishing a signal nobody meant.
 */
export function parseContentSignal(text: string): ContentSignal {
  const signal: ContentSignal = {};
  for (const part of text.split(',').map((p) => p.trim())) {
    if (part === '') continue;
    const match = /^([a-z-]+)=(yes|no)$/.exec(part);
    const key = match?.[1] as ContentSignalKey | undefined;
    if (!match || !key || !CONTENT_SIGNAL_KEYS.includes(key)) {
      throw new Error(`'${part}' is not a content signal: write ${CONTENT_SIGNAL_KEYS.map((k) => `${k}=yes|no`).join(', ')}`);
    }
    if (key in signal) throw new Error(`'${key}' is given twice`);
    signal[key] = match[2] === 'yes';
  }
  if (Object.keys(signal).length === 0) throw new Error('a content signal needs at least one of search, ai-input, ai-train');
  return signal;
}

export function formatContentSignal(signal: ContentSignal): string {
  return CONTENT_SIGNAL_KEYS.filter((k) => signal[k] !== undefined)
    .map((k) => `${k}=${signal[k] ? 'yes' : 'no'}`)
    .join(', ');
}

/**
 * The same preferences in the IETF aipref vocabulary (`Content-Usage`):
 * `search` is `search`, `ai-train` is `train-ai`; answering with the content
 * (`ai-input`) has no aipref category yet, so it is left out.
 */
export function contentUsageOf(signal: ContentSignal): string {
  const pairs: [string, boolean | undefined][] = [
    ['train-ai', signal['ai-train']],
    ['search', signal.search],
  ];
  return pairs
    .filter((p): p is [string, boolean] => p[1] !== undefined)
    .map(([label, allowed]) => `${label}=${allowed ? 'y' : 'n'}`)
    .join(', ');
}

/**
 * AI crawlers named in robots.txt, so a reader (and a scanner) sees they were
 * meant: training crawlers, answer engines' search crawlers and the fetchers
 * that act for a person. They get the rules everyone gets; what they may do
 * with the content is the content signal's to say.
 */
export const AI_CRAWLERS = [
  'GPTBot',
  'OAI-SearchBot',
  'ChatGPT-User',
  'ClaudeBot',
  'Claude-SearchBot',
  'Claude-User',
  'Google-Extended',
  'PerplexityBot',
  'Perplexity-User',
  'CCBot',
  'Applebot-Extended',
  'Amazonbot',
  'meta-externalagent',
  'Bytespider',
  'cohere-ai',
  'MistralAI-User',
] as const;

/** Pages for people in the middle of a sign-in or a form: a crawler gets nothing useful from them. */
const NOT_FOR_CRAWLING = ['authorize', 'consent', 'createKeyFromPortal'] as const satisfies readonly RouteId[];

/** The documents the sitemap lists, for the base and the sandbox. */
const SITEMAP_DOCUMENTS = [
  'getDeveloperPortal',
  'getAgentInstructions',
  'getAgentsMd',
  'getOpenApi',
  'getVersioningPolicy',
  'getOnboarding',
] as const satisfies readonly RouteId[];

/** A path pattern's literal part: `/oauth/consent/{interaction}` is disallowed as `/oauth/consent/`. */
function pathPrefix(path: string): string {
  const brace = path.indexOf('{');
  return brace === -1 ? path : path.slice(0, brace);
}

/** The Disallow paths: each page for people, and its sandbox copy. */
export function disallowedPaths(table: readonly OperationDef[] = OPERATIONS): string[] {
  return NOT_FOR_CRAWLING.map((id) => requireOperation(table, id)).flatMap((op) => {
    const path = pathPrefix(op.path);
    return op.sandbox === 'mirrored' ? [path, `/sandbox${path}`] : [path];
  });
}

export interface RobotsOptions {
  contentSignal?: ContentSignal;
}

/** `/robots.txt`: one set of rules for the AI crawlers, named, and the same for everyone else. */
export function renderRobotsTxt(ctx: DocContext, { contentSignal = parseContentSignal(DEFAULT_CONTENT_SIGNAL) }: RobotsOptions = {}, table: readonly OperationDef[] = OPERATIONS): string {
  const u = docUrls(ctx);
  const rules = [
    `Content-Signal: ${formatContentSignal(contentSignal)}`,
    ...(contentUsageOf(contentSignal) ? [`Content-Usage: ${contentUsageOf(contentSignal)}`] : []),
    'Allow: /',
    ...disallowedPaths(table).map((path) => `Disallow: ${path}`),
  ];
  return [
    `# ${PRODUCT_NAME}: the API documents (${u.root}/llms.txt, /agents.md, /openapi.json, /developers, /.well-known/…)`,
    '# are for reading by people, search engines and agents; sign-in, consent and form pages are not.',
    '# Content-Signal (contentsignals.org) and Content-Usage (IETF aipref) say how the content may be used.',
    '',
    '# AI crawlers: the same rules as everyone.',
    ...AI_CRAWLERS.map((name) => `User-agent: ${name}`),
    ...rules,
    '',
    'User-agent: *',
    ...rules,
    '',
    `Sitemap: ${operationHref(u, requireOperation(table, 'getSitemap'))}`,
    '',
  ].join('\n');
}

const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** `/sitemap.xml`: the documents, on the base and on the sandbox. */
export function renderSitemapXml(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): string {
  const environments = [docUrls({ ...ctx, sandbox: false }), docUrls({ ...ctx, sandbox: true })];
  const urls = environments.flatMap((u) => SITEMAP_DOCUMENTS.map((id) => operationHref(u, requireOperation(table, id))));
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...urls.map((loc) => `  <url><loc>${xmlEscape(loc)}</loc></url>`),
    '</urlset>',
    '',
  ].join('\n');
}
