// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// as the MCP authorization specification uses them): the `client_id` is an
// https URL with a path, and the document there describes the client. It is
// fetched through the guarded public fetch (no private addresses, no
// redirects, a size and a time limit) and cached as its Cache-Control allows,
// up to a cap, once an authorization request with it passed the redirect check.
//
// A fetch runs inside /oauth/authorize, so what a caller can make us wait for
// is bounded here: each address waits for one document at a time, the
// process runs a fixed number of fetches at once, one URL is fetched once at
// a time (others asking for it share that fetch), a failure is remembered for
// minutes, and each address and each host gets a number of new URLs an hour.
// Past any of these the answer is an immediate 429, never a wait.
import { BOUNDS } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { fetchPublic, PublicFetchError, type AddressPolicy } from '@msa/service-kit/public-fetch';
import { z } from 'zod';
import { createClientMetadataStore } from './client-metadata-store.js';
import { redirectUriProblem } from './redirect-uris.js';

/** The longest a document is reused without asking again; the shortest when it names no lifetime. */
export const METADATA_CACHE_MAX_SECONDS = 24 * 3600;
export const METADATA_CACHE_DEFAULT_SECONDS = 300;

/** The defaults of the CLIENT_METADATA_* variables. */
export const METADATA_DEFAULTS = {
  fetchTimeoutMs: 2_000,
  fetchesInFlight: 32,
  urlsPerHostPerHour: 60,
  urlsPerAddressPerHour: 10,
  failureCacheSeconds: 300,
} as const;

export interface ClientMetadataLimits {
  fetchTimeoutMs: number;
  /** Fetches this process runs at once. */
  fetchesInFlight: number;
  /** New document URLs of one host an hour (hosts of verified clients are exempt). */
  urlsPerHostPerHour: number;
  /** New document URLs one client address makes us fetch an hour. */
  urlsPerAddressPerHour: number;
  /** How long a failed fetch is answered from memory. */
  failureCacheSeconds: number;
}

export interface ClientMetadataOptions {
  redis: RedisClient;
  keyPrefix: string;
  policy: AddressPolicy;
  /** `CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS`: loopback `http` documents, for tests and local runs. */
  allowHttpLoopback: boolean;
  limits?: Partial<ClientMetadataLimits>;
  /** Host names of verified clients, whose documents skip the per-host cap. */
  verifiedHosts?: ReadonlySet<string>;
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

/** Refused before any fetch: a cap on waiting or on new URLs; the caller may try again after `retryAfterSeconds`. */
export class ClientMetadataBusy extends Error {
  override name = 'ClientMetadataBusy';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

export interface ResolvedDocument {
  client: MetadataClient;
  /** Caches the document as its Cache-Control allows; call once its authorization request passed the redirect check. */
  keep(): Promise<void>;
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
  const limits: ClientMetadataLimits = { ...METADATA_DEFAULTS, ...opts.limits };
  const store = createClientMetadataStore(opts.redis, opts.keyPrefix);
  const verifiedHosts = opts.verifiedHosts ?? new Set<string>();
  // Per process: what is being fetched, who is waiting, and how many fetches run.
  const flights = new Map<string, Promise<{ client: MetadataClient; ttl: number }>>();
  const waiting = new Set<string>();
  let fetching = 0;
  const waitSeconds = Math.max(1, Math.ceil(limits.fetchTimeoutMs / 1000));

  async function fetchDocument(clientId: string): Promise<{ client: MetadataClient; ttl: number }> {
    let response;
    try {
      response = await fetchPublic(clientId, {
        policy: opts.policy,
        maxBytes: BOUNDS.clientMetadataMaxBytes,
        timeoutMs: limits.fetchTimeoutMs,
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

  /** A fetch of its own, failures remembered; its slot is held until it ends. */
  function startFlight(clientId: string) {
    const flight = (async () => {
      try {
        return await fetchDocument(clientId);
      } catch (err) {
        if (err instanceof ClientMetadataError) await store.saveFailure(clientId, err.message, limits.failureCacheSeconds);
        throw err;
      }
    })();
    flights.set(clientId, flight);
    const end = () => {
      fetching--;
      flights.delete(clientId);
    };
    flight.then(end, end);
    return flight;
  }

  /** Takes a fetch slot and counts the URL against its address and host, or refuses at once. */
  async function admit(clientId: string, requester: string): Promise<void> {
    if (fetching >= limits.fetchesInFlight) {
      throw new ClientMetadataBusy('Too many client metadata documents are being fetched right now.', waitSeconds);
    }
    // Taken before the counts are read, so concurrent requests cannot overshoot the slots.
    fetching++;
    try {
      const host = new URL(clientId).hostname;
      const byAddress = await store.countUrl('address', requester, clientId, limits.urlsPerAddressPerHour);
      if (!byAddress.allowed) {
        throw new ClientMetadataBusy(`This address had ${limits.urlsPerAddressPerHour} new client metadata document URLs fetched this hour.`, byAddress.resetSeconds);
      }
      if (!verifiedHosts.has(host)) {
        const byHost = await store.countUrl('host', host, clientId, limits.urlsPerHostPerHour);
        if (!byHost.allowed) {
          throw new ClientMetadataBusy(`${limits.urlsPerHostPerHour} new client metadata document URLs of ${host} were fetched this hour.`, byHost.resetSeconds);
        }
      }
    } catch (err) {
      fetching--;
      throw err;
    }
  }

  return {
    /**
     * The client the document describes, for `requester` (the caller's
     * address key). Throws ClientMetadataError with a reason to show, or
     * ClientMetadataBusy when a cap refuses the fetch.
     */
    async resolve(clientId: string, requester: string): Promise<ResolvedDocument> {
      const cached = await store.findDocument(clientId);
      if (cached) return { client: cached, keep: async () => undefined };
      const failure = await store.findFailure(clientId);
      if (failure !== null) throw new ClientMetadataError(failure);
      if (waiting.has(requester)) {
        throw new ClientMetadataBusy('This address is already waiting for a client metadata document; one is fetched at a time.', waitSeconds);
      }
      waiting.add(requester);
      try {
        let flight = flights.get(clientId);
        if (!flight) {
          await admit(clientId, requester);
          // Another request may have started this URL while the counts were read: share its fetch.
          flight = flights.get(clientId);
          if (flight) fetching--;
          else flight = startFlight(clientId);
        }
        const { client, ttl } = await flight;
        return { client, keep: async () => (ttl > 0 ? store.saveDocument(clientId, client, ttl) : undefined) };
      } finally {
        waiting.delete(requester);
      }
    },
  };
}
export type ClientMetadataResolver = ReturnType<typeof createClientMetadataResolver>;
