// Markdown to a self-contained HTML page: inline CSS, no scripts, no external
// assets, and an `id` on every heading so `/developers#<error_code>` lands on
// the code's entry.
//
// Narrow screens: text breaks inside a word only when a word alone is wider
// than the line (the `docs` URLs of the error codes are), code blocks and
// tables scroll inside their own box, so the page never scrolls sideways.
// `break-word` rather than `anywhere`: it leaves table columns their
// min-content width instead of squeezing them to a letter.
import { Marked, type Tokens } from 'marked';
import { escapeHtml, renderPageShell } from './page-kit/index.js';

/** A heading's anchor: lower case, word characters kept (so `rate_limited` stays `rate_limited`). */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/&[a-z]+;|&#\d+;/g, '')
    .replace(/[^a-z0-9_\- ]/g, '')
    .trim()
    .replace(/\s+/g, '-')
    .replace(/-+/g, '-');
}

/**
 * A heading may name its anchor, `### ChatGPT {#connect-chatgpt}` (the attribute
 * syntax of Pandoc and kramdown), so a link to it survives a change of wording.
 */
const EXPLICIT_ID = /\s*\{#([a-z0-9_-]+)\}\s*$/;

interface TocEntry {
  id: string;
  html: string;
}

function renderMarkdown(markdown: string): { body: string; toc: TocEntry[]; title: string } {
  const used = new Map<string, number>();
  const toc: TocEntry[] = [];
  let title = '';
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, { tokens, depth, text }: Tokens.Heading) {
        const explicit = EXPLICIT_ID.exec(text)?.[1];
        const inner = this.parser.parseInline(tokens).replace(EXPLICIT_ID, '');
        if (explicit !== undefined && used.has(explicit)) throw new Error(`Two headings name the anchor '${explicit}'.`);
        const base = explicit ?? (slugify(text.replace(/`/g, '')) || 'section');
        const n = used.get(base) ?? 0;
        used.set(base, n + 1);
        const id = n === 0 ? base : `${base}-${n}`;
        if (depth === 1 && !title) title = text.replace(EXPLICIT_ID, '').replace(/`/g, '');
        if (depth === 2) toc.push({ id, html: inner });
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}">${inner}</a></h${depth}>\n`;
      },
    },
  });
  const body = marked.parse(markdown, { async: false });
  return { body, toc, title };
}

/** The portal's layout: a contents column beside the text, one column on narrow screens; colours and type come from the palette. */
const CSS = `
html { scroll-padding-top: 1rem; }
.layout { display: grid; grid-template-columns: 16rem minmax(0, 1fr); max-width: 78rem; margin: 0 auto; }
nav { position: sticky; top: 0; align-self: start; max-height: 100vh; overflow-y: auto; padding: 2rem 1rem 2rem 1.5rem; border-right: 1px solid var(--line); font-size: 0.92rem; }
nav strong { display: block; margin-bottom: 0.5rem; }
nav ol { list-style: none; margin: 0; padding: 0; }
nav li { margin: 0.25rem 0; }
nav a { color: var(--muted); text-decoration: none; }
nav a:hover { color: var(--accent); }
main { padding: 2rem 2.5rem 4rem; min-width: 0; overflow-wrap: break-word; }
h1 { font-size: 2rem; line-height: 1.25; margin-top: 0; }
h2 { margin-top: 2.75rem; padding-top: 0.75rem; border-top: 1px solid var(--line); }
h3 { margin-top: 2rem; }
h1 a.anchor, h2 a.anchor, h3 a.anchor, h4 a.anchor { color: inherit; text-decoration: none; }
h3[id] { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 1.05rem; }
h3:target { background: var(--panel); outline: 2px solid var(--accent); outline-offset: 4px; border-radius: 4px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; background: var(--panel); padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.9rem 1rem; overflow-x: auto; max-width: 100%; line-height: 1.45; }
pre code { background: none; padding: 0; font-size: 0.85rem; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; font-size: 0.93rem; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: 0.4rem 0.6rem; text-align: left; vertical-align: top; }
th { background: var(--panel); }
footer { margin-top: 3rem; color: var(--muted); font-size: 0.85rem; }
@media (max-width: 50rem) { .layout { display: block; } nav { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); } main { padding: 1.5rem 1rem 3rem; } }
`;

export type PageLang = 'en' | 'de';

export interface HtmlPageOptions {
  /** Where the Markdown of the same page lives, for the footer. */
  markdownUrl: string;
  /** The page's language, for `<html lang>` and the page's own words; English unless said. */
  lang?: PageLang;
  /** The page carries the key form, so it needs the form's rules. */
  keyForm?: boolean;
}

const PAGE_WORDS: Record<PageLang, { contents: string; asMarkdown: string }> = {
  en: { contents: 'Contents', asMarkdown: 'This page as Markdown' },
  de: { contents: 'Inhalt', asMarkdown: 'Diese Seite als Markdown' },
};

/** A complete, self-contained HTML page from Markdown, in the page kit's shell. */
export function renderHtmlPage(markdown: string, { markdownUrl, lang = 'en', keyForm = false }: HtmlPageOptions): string {
  const { body, toc, title } = renderMarkdown(markdown);
  const words = PAGE_WORDS[lang];
  const languageHeader = lang === 'en' ? '' : ` -H "Accept-Language: ${lang}"`;
  const nav = toc.map((t) => `<li><a href="#${t.id}">${t.html}</a></li>`).join('\n');
  const layout = `<div class="layout">
<nav aria-label="${words.contents}"><strong>${words.contents}</strong><ol>
${nav}
</ol></nav>
<main>
${body}
<footer>${words.asMarkdown}: <code>curl -H "Accept: text/markdown"${languageHeader} ${escapeHtml(markdownUrl)}</code></footer>
</main>
</div>`;
  const head = `<link rel="alternate" type="text/markdown" href="${escapeHtml(markdownUrl)}">`;
  return renderPageShell({ lang, title, body: layout, head, styles: CSS, keyForm });
}
