/**
 * `/sandbox/<path>` serves `<path>` on the sandbox. The OAuth metadata is also
 * reachable in the RFC 8414 / RFC 9728 path-insertion form
 * (`/.well-known/oauth-authorization-server/sandbox`), which is where a
 * client looks for the metadata of the issuer `<base>/sandbox`.
 */
export function splitSandbox(path: string): { sandbox: boolean; path: string } {
  if (path === '/sandbox' || path === '/sandbox/') return { sandbox: true, path: '/' };
  if (path.startsWith('/sandbox/')) return { sandbox: true, path: path.slice('/sandbox'.length) };
  for (const wk of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource']) {
    if (path === `${wk}/sandbox`) return { sandbox: true, path: wk };
  }
  return { sandbox: false, path };
}
