// What the system holds after a drill, read straight from Redis and the SMTP
// sink rather than through the API, so a check does not trust the code it
// checks. Key names are those of apps/requests/src/store,
// apps/identity/src/store and apps/intake-worker/src/store.
import { keysMatching } from '@msa/test-kit';
import { KEY_PREFIX, type RedisClient } from './drill-system.js';

export interface StoredShopRequest {
  id: string;
  shopName: string;
  owner: string;
  createdAt: number;
}

export interface ListEntry {
  requestId: string;
  shopName: string;
}

export interface StoredCredential {
  clientId: string;
  name: string;
  /** The API key's index points at this record: the key can be used. */
  reachable: boolean;
  createdAt: number;
}

/**
 * The UTC day (`2026-11-25`) a daily quota counts an instant on. A drill
 * that runs across midnight sees its quotas start again, so what is stored
 * is compared with a quota day by day.
 */
export function utcDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Every stored shop request whose shop name starts with `namePrefix`. */
export async function storedShopRequests(redis: RedisClient, namePrefix: string): Promise<StoredShopRequest[]> {
  const found: StoredShopRequest[] = [];
  for (const key of await keysMatching(redis, `${KEY_PREFIX}shop-request:*`)) {
    const [result, body, owner] = await redis.hmget(key, 'result', 'body', 'owner');
    if (!result || !body) continue;
    const shopName = (JSON.parse(body) as { shop_name: string }).shop_name;
    if (!shopName.startsWith(namePrefix)) continue;
    const parsed = JSON.parse(result) as { id: string; created_at: string };
    found.push({ id: parsed.id, shopName, owner: owner ?? '', createdAt: Date.parse(parsed.created_at) });
  }
  return found;
}

/** Entries of the internal request list (the worker's stream). */
export async function listEntries(redis: RedisClient): Promise<ListEntry[]> {
  const entries = await redis.xrange(`${KEY_PREFIX}intake:list`, '-', '+');
  return entries.map(([, values]) => {
    const fields = new Map<string, string>();
    for (let i = 0; i + 1 < values.length; i += 2) fields.set(values[i]!, values[i + 1]!);
    return { requestId: fields.get('request_id') ?? '', shopName: fields.get('shop_name') ?? '' };
  });
}

/** Every credential record whose name starts with `namePrefix`. */
export async function storedCredentials(redis: RedisClient, namePrefix: string): Promise<StoredCredential[]> {
  const found: StoredCredential[] = [];
  for (const key of await keysMatching(redis, `${KEY_PREFIX}cred:{*`)) {
    const [clientId, name, apiKeyHash, createdAt] = await redis.hmget(key, 'client_id', 'name', 'api_key_hash', 'created_at');
    if (!clientId || !name?.startsWith(namePrefix)) continue;
    const indexed = apiKeyHash ? await redis.get(`${KEY_PREFIX}cred-key:${apiKeyHash}`) : null;
    found.push({ clientId, name, reachable: indexed === clientId, createdAt: Date.parse(createdAt ?? '') });
  }
  return found;
}
