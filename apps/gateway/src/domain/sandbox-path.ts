/**
 * `/sandbox/<path>` serves `<path>` on the sandbox. The OAuth metadata is also
 * reachable in the RFC 8414 / RFC 9728 path-insertion form
 * (`/.well-known/oauth-authorization-server/sandbox`,
 * `/.well-known/oauth-protected-resource/sandbox/mcp`), which is where a
 * client looks for the metadata of the issuer `<base>/sandbox` and of the
 * resources `<base>/sandbox` and `<base>/sandbox/mcp`.
 */
export function splitSandbox(path: string): { sandbox: boolean; path: string } {
  if (path === '/sandbox' || path === '/sandbox/') return { sandbox: true, path: '/' };
  if (path.startsWith('/sandbox/')) return { sandbox: true, path: path.slice('/sandbox'.length) };
  for (const wk of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource']) {
    if (path === `${wk}/sandbox`) return { sandbox: true, path: wk };
  }
  // The metadata of the resource `<base>/sandbox/mcp`, in the same path-insertion form.
  const mcpSandbox = '/.well-known/oauth-protected-resource/sandbox/mcp';
  if (path === mcpSandbox) return { sandbox: true, path: '/.well-known/oauth-protected-resource/mcp' };
  return { sandbox: false, path };
}
