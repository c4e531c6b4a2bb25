// Who a `client_id` of the authorization code grant is, in the order the MCP
// authorization specification gives: a client registered here (RFC 7591), or
// a Client ID Metadata Document URL. Anything else is unknown.
//
// A client is verified when its metadata document is served from a host the
// operator listed (OAUTH_VERIFIED_CLIENT_HOSTS). Anyone can register a public
// client or host a document, so every other client is self-declared: its
// name is only what it says, and its redirect URI is not trusted for errors
// (RFC 9700 §4.11.2).
import { SCOPES, SERVICE_PREFIX, type Scope } from '@msa/contracts';
import { ClientMetadataError, isMetadataClientId } from '../rules/client-metadata-document.js';
import { ClientMetadataBusy, type ClientMetadataResolver } from './client-metadata-resolver.js';
import type { OAuthStore } from '../store/oauth-store.js';
import { parseRegistrationScope } from '../rules/scopes.js';

export const PUBLIC_CLIENT_ID_PREFIX = `${SERVICE_PREFIX}_pub_`;
const PUBLIC_CLIENT_ID = new RegExp(`^${PUBLIC_CLIENT_ID_PREFIX}[0-9A-Za-z]{16,64}$`);

export interface ResolvedClient {
  client_id: string;
  client_name: string;
  /** The metadata document's host, shown beside the name; absent for a registered client. */
  host?: string;
  redirect_uris: string[];
  /** What the client may ask for; all scopes unless it registered fewer. */
  scopes: Scope[];
  /** Served from a host the operator verified; false for every self-declared client. */
  verified: boolean;
}

export type ClientLookup =
  | {
      ok: true;
      client: ResolvedClient;
      /** Caches a fetched document; called once the authorization request passed the redirect check. */
      keep(): Promise<void>;
    }
  | { ok: false; problem: 'unknown_client' | 'client_metadata'; detail?: string }
  | { ok: false; problem: 'busy'; detail: string; retryAfterSeconds: number };

export interface ClientDirectoryOptions {
  allowHttpLoopback: boolean;
  /** OAUTH_VERIFIED_CLIENT_HOSTS, lower case. */
  verifiedHosts: ReadonlySet<string>;
}

const nothingToKeep = async () => undefined;

export function createClientDirectory(store: OAuthStore, metadata: ClientMetadataResolver, { allowHttpLoopback, verifiedHosts }: ClientDirectoryOptions) {
  return {
    /** The client of `clientId`, as `requester` (the caller's address key) asks for it. */
    async lookup(clientId: string | undefined, requester: string): Promise<ClientLookup> {
      if (!clientId) return { ok: false, problem: 'unknown_client', detail: 'client_id is missing.' };
      if (PUBLIC_CLIENT_ID.test(clientId)) {
        const client = await store.findClient(clientId);
        if (!client) return { ok: false, problem: 'unknown_client', detail: 'No client with this client_id is registered, or it expired unused.' };
        return {
          ok: true,
          client: { client_id: client.client_id, client_name: client.client_name, redirect_uris: client.redirect_uris, scopes: client.scopes, verified: false },
          keep: nothingToKeep,
        };
      }
      if (isMetadataClientId(clientId, allowHttpLoopback)) {
        try {
          const { client: doc, keep } = await metadata.resolve(clientId, requester);
          const scope = parseRegistrationScope(doc.scope);
          return {
            ok: true,
            keep,
            client: {
              client_id: doc.client_id,
              client_name: doc.client_name,
              host: doc.host,
              redirect_uris: doc.redirect_uris,
              // Scope values this API does not know are ignored: the document serves other servers too.
              scopes: scope.ok ? scope.scopes : [...SCOPES],
              verified: verifiedHosts.has(new URL(doc.client_id).hostname),
            },
          };
        } catch (err) {
          if (err instanceof ClientMetadataError) return { ok: false, problem: 'client_metadata', detail: err.message };
          if (err instanceof ClientMetadataBusy) return { ok: false, problem: 'busy', detail: err.message, retryAfterSeconds: err.retryAfterSeconds };
          throw err;
        }
      }
      return { ok: false, problem: 'unknown_client', detail: 'client_id is neither a registered client nor an https URL of a client metadata document.' };
    },
  };
}
export type ClientDirectory = ReturnType<typeof createClientDirectory>;
