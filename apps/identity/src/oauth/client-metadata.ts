// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// as the MCP authorization specification uses them): the `client_id` is an
// https URL with a path, and the document there describes the client. It is
// fetched through the guarded public fetch (no private addresses, no
// redirects, a size and a time limit) and cached as its Cache-Control allows,
// up to a cap.
import { createHash } from 'node:crypto';
import { BOUNDS } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { fetchPublic, PublicFetchError, type AddressPolicy } from '@msa/service-kit/public-fetch';
import { z } from 'zod';
import { redirectUriProblem } from './redirect-uris.js';

/** The longest a document is reused without asking again; the shortest when it names no lifetime. */
export const METADATA_CACHE_MAX_SECONDS = 24 * 3600;
export const METADATA_CACHE_DEFAULT_SECONDS = 300;
export const METADATA_FETCH_TIMEOUT_MS = 5_000;

export interface ClientMetadataOptions {
  redis: RedisClient;
  keyPrefix: string;
  policy: AddressPolicy;
  /** `CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS`: loopback `http` documents, for tests and local runs. */
  allowHttpLoopback: boolean;
  timeoutMs?: number;
}

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

export function createClientMetadataResolver(opts: ClientMetadataOptions) {
  const cacheKey = (clientId: string) => `${opts.keyPrefix}cimd:${createHash('sha256').update(clientId).digest('hex')}`;

  async function fetchDocument(clientId: string): Promise<{ client: MetadataClient; ttl: number }> {
    let response;
    try {
      response = await fetchPublic(clientId, {
        policy: opts.policy,
        maxBytes: BOUNDS.clientMetadataMaxBytes,
        timeoutMs: opts.timeoutMs ?? METADATA_FETCH_TIMEOUT_MS,
        maxRedirects: 0,
        protocols: opts.allowHttpLoopback ? ['https:', 'http:'] : ['https:'],
        headers: { accept: 'application/json', 'user-agent': 'msa-identity (client metadata)' },
      });
    } catch (err) {
      const detail = err instanceof PublicFetchError ? err.message : 'the fetch failed';
      throw new ClientMetadataError(`The client metadata document could not be fetched: ${detail}.`);
    }
    let json: unknown;
    try {
      json = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw new ClientMetadataError('The client metadata document is not JSON.');
    }
    const cc = response.headers['cache-control'];
    return { client: validateMetadata(clientId, json), ttl: cacheSeconds(Array.isArray(cc) ? cc.join(',') : cc) };
  }

  return {
    /** The client the document describes; throws ClientMetadataError with a reason to show. */
    async resolve(clientId: string): Promise<MetadataClient> {
      const cached = await opts.redis.get(cacheKey(clientId));
      if (cached) return JSON.parse(cached) as MetadataClient;
      const { client, ttl } = await fetchDocument(clientId);
      if (ttl > 0) await opts.redis.set(cacheKey(clientId), JSON.stringify(client), 'EX', ttl);
      return client;
    },
  };
}
export type ClientMetadataResolver = ReturnType<typeof createClientMetadataResolver>;
