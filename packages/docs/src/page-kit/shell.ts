// The document around every page for people: one head, so the pages agree on
// charset, viewport, icon and colours, and each page brings only its body and
// its own rules.
import { PRODUCT_NAME, escapeHtml } from '@msa/contracts';
import { FAVICON_PATH, FAVICON_TYPE } from '../favicon.js';
import { KEY_FORM_CSS, PALETTE } from './palette.js';

export interface PageShellOptions {
  /** `<html lang>`. */
  lang: 'de' | 'en';
  /** The page's title, as text (escaped here). */
  title: string;
  /** Everything inside `<body>`, as HTML. */
  body: string;
  /** More of `<head>` as HTML, after the title and icon (an alternate link, say). */
  head?: string;
  /** The page's own CSS, after the palette, so it may override it. */
  styles?: string;
  /** Adds ` · PRODUCT_NAME` to the title, for pages whose own title does not name the product. */
  productInTitle?: boolean;
  /** Asks search engines to leave the page out: pages for one person's flow, not for reading. */
  noindex?: boolean;
  /** Links the site's icon; true unless said. Root-relative, so it stays same-origin on whatever host served the page. */
  icon?: boolean;
  /** Adds the key form's rules, for a page that carries `renderKeyForm`. */
  keyForm?: boolean;
  /** A CSP nonce for the `<style>` element, where a policy asks for one. */
  nonce?: string;
}

/** The complete HTML document: doctype, charset, viewport, title, icon, the palette and the page's rules, then the body. */
export function renderPageShell(options: PageShellOptions): string {
  const { lang, title, body, head, styles = '', productInTitle = false, noindex = false, icon = true, keyForm = false, nonce } = options;
  const headLines = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    noindex ? '<meta name="robots" content="noindex, nofollow">' : '',
    `<title>${escapeHtml(productInTitle ? `${title} · ${PRODUCT_NAME}` : title)}</title>`,
    icon ? `<link rel="icon" type="${FAVICON_TYPE}" href="${FAVICON_PATH}">` : '',
    head ?? '',
    `<style${nonce === undefined ? '' : ` nonce="${escapeHtml(nonce)}"`}>${PALETTE}${keyForm ? KEY_FORM_CSS : ''}${styles}</style>`,
  ].filter(Boolean);
  return `<!doctype html>
<html lang="${lang}">
<head>
${headLines.join('\n')}
</head>
<body>
${body}
</body>
</html>
`;
}
