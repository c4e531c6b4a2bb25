// The headers of every page of the OAuth flow: never framed, never cached,
// no referrer carrying a code onwards, and a Content-Security-Policy that
// lets a form post only here and, where the flow ends, to the client's
// redirect URI.
import { formActionSource } from './redirect-uris.js';

const CSP_FIXED = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:";
const CSP_CLOSING = "frame-ancestors 'none'; base-uri 'none'";

export function pageSecurityPolicy(formTarget?: string): string {
  const formAction = ["'self'", ...(formTarget ? [formActionSource(formTarget)] : [])].join(' ');
  return `${CSP_FIXED}; form-action ${formAction}; ${CSP_CLOSING}`;
}

/** Every header a page sets, the policy with the form target of the page. */
export function pageHeaders(formTarget?: string): Record<string, string> {
  return {
    'Content-Security-Policy': pageSecurityPolicy(formTarget),
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
  };
}
