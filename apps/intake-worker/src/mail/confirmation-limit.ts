/*
 * At most N confirmations a day to one recipient address, whichever
 * credential made the requests: the confirmation goes to an address the
 * caller chose, so without this bound our domain would mail anyone as often
 * as requests can be made. Past the bound the request is still delivered to
 * the operator; only the confirmation is held back.
 *
 *   <prefix>intake:confirmations:{<hmac>}:<UTC day>  hash, 2 days:
 *     `<request id>` → `sent` | `held`, `_sent` → confirmations granted that day
 *
 * The address is never in a key: it is lower-cased, trimmed and hashed with a
 * key derived from INTERNAL_AUTH_SECRET, so the key names cannot be matched
 * against a list of addresses. The decision of a request is stored with it, so
 * a retry of the same job gets the same answer and is not counted twice; the
 * day before is consulted too, for a retry just after midnight.
 */
import { createHmac } from 'node:crypto';
import type { RedisClient } from '@msa/service-kit';
import { script } from '../store/intake-store.js';

export type ConfirmationDecision = 'send' | 'hold';

export interface ConfirmationLimit {
  /** Whether the confirmation of `requestId` to `address` may go out; the same answer on every call for one request. */
  decide(requestId: string, address: string): Promise<{ decision: ConfirmationDecision; first: boolean }>;
}

const DAY_MS = 24 * 3600 * 1000;
const TTL_SECONDS = 2 * 24 * 3600;

/*
 * KEYS: today, yesterday (one hash tag). ARGV: request id, limit, ttl.
 * Returns {decision, first}: 1 send / 0 hold; 1 when decided now.
 */
const DECIDE = `
local earlier = redis.call('HGET', KEYS[1], ARGV[1]) or redis.call('HGET', KEYS[2], ARGV[1])
if earlier then return {earlier == 'sent' and 1 or 0, 0} end
local sent = tonumber(redis.call('HGET', KEYS[1], '_sent') or '0')
if sent < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], 'sent', '_sent', sent + 1)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return {1, 1}
end
redis.call('HSET', KEYS[1], ARGV[1], 'held')
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {0, 1}
`;
const decide = script(DECIDE);

/** The normalised address, as the key's hash sees it. */
function normaliseAddress(address: string): string {
  return address.trim().toLowerCase();
}

export interface ConfirmationLimitOptions {
  redis: RedisClient;
  keyPrefix: string;
  /** Confirmations to one address per UTC day. */
  perDay: number;
  /** Keys the address hash (INTERNAL_AUTH_SECRET). */
  secret: string;
  now?: () => number;
}

export function createConfirmationLimit(opts: ConfirmationLimitOptions): ConfirmationLimit {
  const hashKey = createHmac('sha256', opts.secret).update('msa intake confirmation limit v1').digest();
  const now = opts.now ?? Date.now;
  const keyOf = (hash: string, time: number) => `${opts.keyPrefix}intake:confirmations:{${hash}}:${new Date(time).toISOString().slice(0, 10)}`;

  return {
    async decide(requestId, address) {
      const hash = createHmac('sha256', hashKey).update(normaliseAddress(address)).digest('base64url');
      const time = now();
      const keys = [keyOf(hash, time), keyOf(hash, time - DAY_MS)];
      const args = [requestId, opts.perDay, TTL_SECONDS];
      const [send, first] = (await decide(opts.redis, keys, args)) as [number, number];
      return { decision: send === 1 ? 'send' : 'hold', first: first === 1 };
    },
  };
}
