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
import { createClientMetadataStore, type ClientMetadataStore } from '../store/client-metadata-store.js';
import { cacheSeconds, ClientMetadataError, validateMetadata, type MetadataClient } from '../rules/client-metadata-document.js';

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

type Fetched = { client: MetadataClient; ttl: number };

/** Fetches and checks one document through the guarded public fetch. */
async function fetchDocument(clientId: string, opts: ClientMetadataOptions, timeoutMs: number): Promise<Fetched> {
  let response;
  try {
    response = await fetchPublic(clientId, {
      policy: opts.policy,
      maxBytes: BOUNDS.clientMetadataMaxBytes,
      timeoutMs,
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

/**
 * Per process: the fetches running (one per URL, shared by whoever asks for
 * it meanwhile) and the slots they hold.
 */
function createFlights(opts: ClientMetadataOptions, limits: ClientMetadataLimits, store: ClientMetadataStore, waitSeconds: number) {
  const verifiedHosts = opts.verifiedHosts ?? new Set<string>();
  const flights = new Map<string, Promise<Fetched>>();
  let fetching = 0;

  /** A fetch of its own, failures remembered; its slot is held until it ends. */
  function start(clientId: string): Promise<Fetched> {
    const flight = (async () => {
      try {
        return await fetchDocument(clientId, opts, limits.fetchTimeoutMs);
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

  /** Counts the URL against its address and host, or refuses at once. */
  async function countUrl(clientId: string, requester: string): Promise<void> {
    const host = new URL(clientId).hostname;
    const byAddress = await store.countUrl('address', requester, clientId, limits.urlsPerAddressPerHour);
    if (!byAddress.allowed) {
      throw new ClientMetadataBusy(`This address had ${limits.urlsPerAddressPerHour} new client metadata document URLs fetched this hour.`, byAddress.resetSeconds);
    }
    if (verifiedHosts.has(host)) return;
    const byHost = await store.countUrl('host', host, clientId, limits.urlsPerHostPerHour);
    if (!byHost.allowed) {
      throw new ClientMetadataBusy(`${limits.urlsPerHostPerHour} new client metadata document URLs of ${host} were fetched this hour.`, byHost.resetSeconds);
    }
  }

  return {
    /** The running fetch of `clientId`, or a new one once a slot and the URL counts allow it. */
    async join(clientId: string, requester: string): Promise<Fetched> {
      const running = flights.get(clientId);
      if (running) return running;
      if (fetching >= limits.fetchesInFlight) {
        throw new ClientMetadataBusy('Too many client metadata documents are being fetched right now.', waitSeconds);
      }
      // Taken before the counts are read, so concurrent requests cannot overshoot the slots.
      fetching++;
      try {
        await countUrl(clientId, requester);
      } catch (err) {
        fetching--;
        throw err;
      }
      // Another request may have started this URL while the counts were read: share its fetch.
      const started = flights.get(clientId);
      if (!started) return start(clientId);
      fetching--;
      return started;
    },
  };
}

export function createClientMetadataResolver(opts: ClientMetadataOptions) {
  const limits: ClientMetadataLimits = { ...METADATA_DEFAULTS, ...opts.limits };
  const store = createClientMetadataStore(opts.redis, opts.keyPrefix);
  const waitSeconds = Math.max(1, Math.ceil(limits.fetchTimeoutMs / 1000));
  const flights = createFlights(opts, limits, store, waitSeconds);
  // Per process: the addresses waiting for a document, one at a time each.
  const waiting = new Set<string>();

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
        const { client, ttl } = await flights.join(clientId, requester);
        return { client, keep: async () => (ttl > 0 ? store.saveDocument(clientId, client, ttl) : undefined) };
      } finally {
        waiting.delete(requester);
      }
    },
  };
}
export type ClientMetadataResolver = ReturnType<typeof createClientMetadataResolver>;
