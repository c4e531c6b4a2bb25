// The page kit: what every page for people is made of, so the developer
// portal, the legal pages, the consent page and the portal's key pages share
// one name, one escaping, one palette and one document shell.
export { PRODUCT_NAME, escapeHtml } from '@msa/contracts';
export { PALETTE } from './palette.js';
export { renderPageShell, type PageShellOptions } from './shell.js';
export { renderKeyForm, type KeyFormOptions } from './key-form.js';
