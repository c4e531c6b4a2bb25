// RFC 8707 resource indicators at the token endpoint. A client names the
// resource it will call; the token's `aud` becomes that resource, so a token
// obtained for the MCP endpoint is not also a token for the REST API. Only
// resources this API serves can be named; the gateway checks the same list,
// in both spellings of a trailing slash.

/** The REST API, the MCP endpoint and their sandbox forms, as token audiences. */
export function servedResources(publicBaseUrl: string): string[] {
  return [publicBaseUrl, `${publicBaseUrl}/mcp`, `${publicBaseUrl}/sandbox`, `${publicBaseUrl}/sandbox/mcp`];
}

/** URL normalisation (scheme and host case, default port) with one trailing slash forgiven, so `{base}/` names `{base}`. */
function canonical(uri: string): string | null {
  try {
    const url = new URL(uri);
    if (url.hash !== '' || uri.includes('#')) return null;
    return url.href.replace(/\/$/, '');
  } catch {
    return null;
  }
}

export type AudienceResult = { ok: true; audience: string } | { ok: false; message: string };

/** Whether two resources are one, spelled with and without a trailing slash or in another case of scheme and host. */
export function sameResource(a: string, b: string): boolean {
  const ca = canonical(a);
  return ca !== null && ca === canonical(b);
}

/**
 * The audience for a token request: the named resource, or `publicBaseUrl`
 * (the audience every token had before resource indicators) without one.
 * A trailing slash the client sent stays in the audience: clients compare
 * `aud` with the resource they asked for (claude.ai sends `https://host/`
 * for a host-only resource and drops a token whose `aud` lacks the slash).
 */
export function audienceFor(publicBaseUrl: string, resource: string | string[] | undefined): AudienceResult {
  if (resource === undefined || resource === '') return { ok: true, audience: publicBaseUrl };
  const values = Array.isArray(resource) ? resource : [resource];
  if (values.length !== 1) return { ok: false, message: 'Name one resource per token request.' };
  const wanted = canonical(values[0]!);
  if (wanted === null) return { ok: false, message: 'resource must be an absolute URI without a fragment.' };
  const served = servedResources(publicBaseUrl).find((r) => canonical(r) === wanted);
  if (!served) return { ok: false, message: `'${values[0]}' is not a resource of this API.` };
  return { ok: true, audience: values[0]!.endsWith('/') ? `${served}/` : served };
}
