// The product's name and HTML escaping, which every page and e-mail for
// people needs. They live here rather than in the docs package's page kit
// (which re-exports them) so the intake worker's image, which renders mails,
// does not carry the documents and their Markdown renderer.

/** The product's name, as pages, mails and documents write it. */
export const PRODUCT_NAME = 'Merch-Shop Agent API';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const HTML_SPECIAL = /[&<>"']/;

/** Text as HTML text or attribute value; `'` too, since a value may land in an attribute quoted either way. */
export function escapeHtml(value: string): string {
  // Most values have nothing to escape; the test is cheaper than a replace that finds nothing.
  return HTML_SPECIAL.test(value) ? value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!) : value;
}
