// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document):
// which `client_id` names one, how long a fetched one may be reused, and what
// a fetched one must say before its client can ask for consent.
import { BOUNDS } from '@msa/contracts';
import { z } from 'zod';
import { redirectUriProblem } from './redirect-uris.js';

/** The longest a document is reused without asking again; the shortest when it names no lifetime. */
export const METADATA_CACHE_MAX_SECONDS = 24 * 3600;
export const METADATA_CACHE_DEFAULT_SECONDS = 300;

const MetadataDocument = z.looseObject({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: z.string().optional(),
  redirect_uris: z.array(z.string()).min(1).max(20),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  token_endpoint_auth_method: z.string().optional(),
  scope: z.string().optional(),
});

export interface MetadataClient {
  client_id: string;
  client_name: string;
  /** The host of the document, shown on the consent page next to the name. */
  host: string;
  redirect_uris: string[];
  scope?: string;
}

export class ClientMetadataError extends Error {
  override name = 'ClientMetadataError';
}

/** True for a `client_id` that names a metadata document: an https URL with a path (http on loopback where allowed). */
export function isMetadataClientId(clientId: string, allowHttpLoopback: boolean): boolean {
  if (clientId.length > BOUNDS.oauthUrlMaxLength) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  const secure = url.protocol === 'https:' || (allowHttpLoopback && url.protocol === 'http:');
  return secure && url.pathname.length > 1 && url.hash === '' && url.username === '' && url.password === '';
}

/** Seconds the answer may be reused: its max-age up to the cap; none for no-store or no-cache. */
export function cacheSeconds(cacheControl: string | undefined): number {
  if (!cacheControl) return METADATA_CACHE_DEFAULT_SECONDS;
  const directives = cacheControl.toLowerCase().split(',').map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
  const maxAge = directives.map((d) => /^max-age=(\d+)$/.exec(d)?.[1]).find((v) => v !== undefined);
  if (maxAge === undefined) return METADATA_CACHE_DEFAULT_SECONDS;
  return Math.min(Number(maxAge), METADATA_CACHE_MAX_SECONDS);
}

/** Checks a fetched document against the URL it came from; throws what is wrong. */
export function validateMetadata(clientId: string, raw: unknown): MetadataClient {
  const parsed = MetadataDocument.safeParse(raw);
  if (!parsed.success) throw new ClientMetadataError('The client metadata document is not valid: it needs client_id and redirect_uris.');
  const doc = parsed.data;
  if (doc.client_id !== clientId) throw new ClientMetadataError('The client metadata document names another client_id than the URL it was fetched from.');
  if ('client_secret' in doc || 'client_secret_expires_at' in doc) {
    throw new ClientMetadataError('A client metadata document must not carry a client secret.');
  }
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') throw new ClientMetadataError(`token_endpoint_auth_method '${method}' is not supported; public clients use 'none'.`);
  for (const uri of doc.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new ClientMetadataError(`The redirect URI ${uri} ${problem}.`);
  }
  const host = new URL(clientId).host;
  return {
    client_id: clientId,
    client_name: doc.client_name ?? host,
    host,
    redirect_uris: doc.redirect_uris,
    ...(doc.scope ? { scope: doc.scope } : {}),
  };
}
