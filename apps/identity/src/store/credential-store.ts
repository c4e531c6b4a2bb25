// Where credentials live. One Redis hash per principal, keyed by client id,
// holds only hashes of the API key and client secret; a second, single key
// maps the API key's hash to the client id. The two keys cannot share a hash
// slot (the key hash is not known from the client id and vice versa), so they
// are written one after the other instead of in a MULTI: record first, index
// second. A crash between the two leaves a record nobody can reach by key and
// whose secret nobody was shown; the reverse order could leave an index
// pointing at nothing. A failed index write removes the record again.
import { Mode, Scope } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { keysMatching, pingRedis } from '@msa/service-kit/redis';
import { z } from 'zod';

export const CredentialRecord = z.object({
  client_id: z.string(),
  api_key_hash: z.string(),
  client_secret_hash: z.string(),
  name: z.string(),
  email: z.string(),
  scopes: z.array(Scope),
  mode: Mode,
  tier: z.string(),
  created_at: z.string(),
  /** How the credentials were created: POST /v1/keys or POST /oauth/register. */
  origin: z.enum(['api_key', 'registration']),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post']),
});
export type CredentialRecord = z.infer<typeof CredentialRecord>;

export interface CredentialStore {
  /** Stores a new principal; throws when its client id or key hash is already taken. */
  create(record: CredentialRecord): Promise<void>;
  findByClientId(clientId: string): Promise<CredentialRecord | null>;
  findByApiKeyHash(apiKeyHash: string): Promise<CredentialRecord | null>;
  /** Writes the key index of a stored record if a crash left it out; a no-op when it is there. */
  completeIndex(record: CredentialRecord): Promise<void>;
  ping(): Promise<void>;
}

/** The store's part in the right to erasure. */
export interface CredentialEraser {
  /** Deletes a principal and its key index; its key and secret stop working. */
  remove(record: CredentialRecord): Promise<void>;
  /** Every stored principal's client id, by a SCAN of every master: the operator's fallback for records older than the person index. */
  allClientIds(): Promise<string[]>;
}

export class CredentialConflictError extends Error {
  constructor(what: string) {
    super(`credential ${what} already exists`);
    this.name = 'CredentialConflictError';
  }
}

function toHash(record: CredentialRecord): Record<string, string> {
  return { ...record, scopes: record.scopes.join(' ') };
}

function fromHash(fields: Record<string, string>): CredentialRecord | null {
  if (!fields.client_id) return null;
  const parsed = CredentialRecord.safeParse({ ...fields, scopes: (fields.scopes ?? '').split(' ').filter(Boolean) });
  return parsed.success ? parsed.data : null;
}

export function createCredentialStore(redis: RedisClient, prefix: string): CredentialStore & CredentialEraser {
  // The hash tag keeps everything later stored per principal in one slot.
  const recordKey = (clientId: string) => `${prefix}cred:{${clientId}}`;
  const indexKey = (apiKeyHash: string) => `${prefix}cred-key:${apiKeyHash}`;

  async function findByClientId(clientId: string): Promise<CredentialRecord | null> {
    return fromHash(await redis.hgetall(recordKey(clientId)));
  }

  return {
    async create(record) {
      const key = recordKey(record.client_id);
      if ((await redis.hsetnx(key, 'client_id', record.client_id)) === 0) throw new CredentialConflictError('client id');
      try {
        await redis.hset(key, toHash(record));
        if ((await redis.set(indexKey(record.api_key_hash), record.client_id, 'NX')) !== 'OK') {
          throw new CredentialConflictError('api key');
        }
      } catch (err) {
        await redis.del(key).catch(() => undefined);
        throw err;
      }
    },
    findByClientId,
    async remove(record) {
      // Index first: a crash between leaves a record nobody can reach by key, as a failed create does.
      await redis.del(indexKey(record.api_key_hash));
      await redis.del(recordKey(record.client_id));
    },
    async allClientIds() {
      const keys = await keysMatching(redis, `${prefix}cred:{*}`);
      return keys.flatMap((key) => /cred:\{([^}]+)\}$/.exec(key)?.[1] ?? []);
    },
    async completeIndex(record) {
      await redis.set(indexKey(record.api_key_hash), record.client_id, 'NX');
    },
    async findByApiKeyHash(apiKeyHash) {
      const clientId = await redis.get(indexKey(apiKeyHash));
      return clientId === null ? null : findByClientId(clientId);
    },
    // On a Cluster a bare PING reaches one node; readiness needs every master.
    ping: () => pingRedis(redis),
  };
}
