// The protected resources behind the gateway (RFC 9728) and the token
// audiences each accepts (RFC 8707). The REST API is `{base}` and the MCP
// endpoint `{base}/mcp`, each also under `/sandbox`. Each has its own
// metadata document, named in the 401 challenge of a request to it.

export interface ProtectedResource {
  /** The resource identifier, as its metadata document names it. */
  uri: string;
  /** The RFC 9728 §3.1 address of its metadata document (path inserted after `/.well-known/…`). */
  metadataUrl: string;
  /**
   * Token audiences accepted here: the resource itself, then `{base}`, the
   * audience of every token requested without `resource` (and of every token
   * issued before resource indicators), each also with a trailing slash,
   * since identity keeps the slash a client sent (`https://host/`, as
   * claude.ai names a host-only resource). Clients that already use base
   * tokens on /mcp keep working; a token requested for /mcp works only on /mcp.
   */
  audiences: [string, ...string[]];
}

export function protectedResourceFor(publicBaseUrl: string, sandbox: boolean, mcp: boolean): ProtectedResource {
  const path = `${sandbox ? '/sandbox' : ''}${mcp ? '/mcp' : ''}`;
  const uri = `${publicBaseUrl}${path}`;
  return {
    uri,
    metadataUrl: `${publicBaseUrl}/.well-known/oauth-protected-resource${path}`,
    audiences: (uri === publicBaseUrl ? [uri] : [uri, publicBaseUrl]).flatMap((a) => [a, `${a}/`]) as [string, ...string[]],
  };
}
