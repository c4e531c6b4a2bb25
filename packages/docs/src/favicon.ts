// The portal's icon: a white T-shirt on the accent blue, as SVG. Browsers ask
// for /favicon.ico on every visit whether or not a page links one, and a 404
// there is a console error, so the documents router answers it with this.
// SVG under the .ico name is fine: browsers go by Content-Type, not by suffix.
import { PRODUCT_NAME, escapeHtml } from '@msa/contracts';

/** Where the icon is served (also on the sandbox path, which the gateway strips). */
export const FAVICON_PATH = '/favicon.ico';

export const FAVICON_TYPE = 'image/svg+xml';

export const FAVICON_SVG = [
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" role="img">',
  `<title>${escapeHtml(PRODUCT_NAME)}</title>`,
  '<rect width="64" height="64" rx="14" fill="#0b6bcb"/>',
  '<path d="M23 11 11 17 5 29l10 4 2-4v25h30V29l2 4 10-4-6-12-12-6c-2 5-5 7-9 7s-7-2-9-7z" fill="#fff"/>',
  '</svg>',
  '',
].join('\n');
