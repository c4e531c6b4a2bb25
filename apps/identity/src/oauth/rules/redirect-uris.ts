// Redirect URIs: registered exactly and matched exactly, except that a
// loopback redirect may use any port (RFC 8252 §7.3), because native hosts
// (VS Code, Claude Code, the SDK clients) listen on a port chosen at run time.
import { BOUNDS } from '@msa/contracts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes that would run code or read files in the browser instead of reaching an app. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);

function parse(uri: string): URL | null {
  if (uri.length > BOUNDS.oauthUrlMaxLength) return null;
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

export function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Why a redirect URI cannot be registered, or null when it can. */
export function redirectUriProblem(uri: string): string | null {
  const url = parse(uri);
  if (!url) return 'must be an absolute URI';
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment';
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `${url.protocol} is not a redirect scheme`;
  if (url.protocol === 'http:' && !isLoopback(url)) return 'http is only allowed for loopback addresses (127.0.0.1, [::1], localhost)';
  if (url.username !== '' || url.password !== '') return 'must not carry user information';
  return null;
}

/** The registered URI the requested one matches: the same string, or the same loopback URI on another port. */
export function matchRedirectUri(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  const url = parse(requested);
  if (!url || !isLoopback(url)) return false;
  return registered.some((r) => {
    const reg = parse(r);
    if (!reg || !isLoopback(reg)) return false;
    return reg.hostname === url.hostname && reg.pathname === url.pathname && reg.search === url.search;
  });
}

/** A CSP `form-action` source for the redirect, so the consent form may end there. */
export function formActionSource(uri: string): string {
  const url = parse(uri);
  if (!url) return "'none'";
  if (isLoopback(url)) return `http://${url.hostname}:*`;
  if (url.protocol === 'https:' || url.protocol === 'http:') return url.origin;
  return url.protocol;
}
