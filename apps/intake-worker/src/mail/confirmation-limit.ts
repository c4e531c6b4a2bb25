/*
 * At most N confirmations a day to one recipient address, whichever
 * credential made the requests: the confirmation goes to an address the
 * caller chose, so without this bound our domain would mail anyone as often
 * as requests can be made. Past the bound the request is still delivered to
 * the operator; only the confirmation is held back.
 *
 * The same decision counts the day's live requests to the address and to its
 * domain, for the operator e-mail: a catch-all domain gives one person as
 * many confirmed addresses as they like, and the operator should see that.
 *
 *   <prefix>intake:confirmations:{<domain hmac>}:<address hmac>:<UTC day>  hash, 2 days:
 *     `<request id>` → `sent` | `held`, `_sent` → confirmations granted,
 *     `_n` → live requests to the address that day
 *   <prefix>intake:domain-requests:{<domain hmac>}:<UTC day>  string, 2 days:
 *     live requests to the domain that day
 *
 * No address or domain is in a key: the address is normalised as quotas
 * count people (service-kit `mailboxKey`: case, `+tag` and Gmail's dots
 * ignored, so `erika+1@` is no second mailbox), and it and its domain are
 * hashed with keys derived from INTERNAL_AUTH_SECRET, so the key names cannot
 * be matched against a list of addresses. The domain is the hash tag: one
 * script decides and counts both, in one slot of a Cluster (live requests
 * are few, so a large domain's slot stays small). The decision of a request
 * is stored with it, so a retry of the same job gets the same answer and is
 * counted once; the day before is consulted too, for a retry just after
 * midnight.
 */
import { createHmac } from 'node:crypto';
import { LIMITS } from '@msa/contracts';
import { mailboxDomain, mailboxKey, type RedisClient } from '@msa/service-kit';
import { script } from '../store/intake-store.js';

export type ConfirmationDecision = 'send' | 'hold';

/** Live requests on the UTC day a request was decided, that request included. */
export interface RequestsToday {
  /** To the same address, as mailboxKey counts it. */
  address: number;
  /** To the same domain (mailboxDomain). */
  domain: number;
}

export interface ConfirmationLimit {
  /**
   * Whether the confirmation of `requestId` to `address` may go out, and the
   * day's requests to the address and its domain; the same decision on every
   * call for one request, which is counted once. `addedAt`: when its job
   * was added; a job added today cannot have been decided yesterday, so
   * yesterday's keys are read only without it or for a job added before.
   */
  decide(requestId: string, address: string, job?: { addedAt?: number }): Promise<{ decision: ConfirmationDecision; first: boolean; requestsToday: RequestsToday }>;
}

const DAY_MS = 24 * 3600 * 1000;
// The UTC day as service-kit's `utcDay` writes it; its module would load rate-limiter-flexible into the worker for one line.
const dayOf = (time: number) => new Date(time).toISOString().slice(0, 10);
/** The privacy notice states this lifetime of keys that name a mailbox. */
const TTL_SECONDS = LIMITS.limiterKeyRetentionDays * 24 * 3600;

/*
 * KEYS: address today, domain today, then, when a decision of yesterday may
 * exist, address yesterday and domain yesterday (one hash tag). ARGV:
 * request id, limit, ttl.
 * Returns {decision, first, address count, domain count}: 1 send / 0 hold;
 * 1 when decided now; the counts of the day it was decided. A first
 * decision runs four commands (five for a domain's first request of the
 * day, one more when yesterday is looked at): one read of today's decision
 * and counts, the domain's INCR, the write and its expiry.
 */
const DECIDE = `
local day = redis.call('HMGET', KEYS[1], ARGV[1], '_sent', '_n')
if day[1] then
  return {day[1] == 'sent' and 1 or 0, 0, tonumber(day[3] or '0'), tonumber(redis.call('GET', KEYS[2]) or '0')}
end
if KEYS[3] then
  local earlier = redis.call('HGET', KEYS[3], ARGV[1])
  if earlier then
    return {earlier == 'sent' and 1 or 0, 0, tonumber(redis.call('HGET', KEYS[3], '_n') or '0'), tonumber(redis.call('GET', KEYS[4]) or '0')}
  end
end
local sent = tonumber(day[2] or '0')
local requests = tonumber(day[3] or '0') + 1
local domain = redis.call('INCR', KEYS[2])
if domain == 1 then redis.call('EXPIRE', KEYS[2], ARGV[3]) end
if sent < tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], ARGV[1], 'sent', '_sent', sent + 1, '_n', requests)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return {1, 1, requests, domain}
end
redis.call('HSET', KEYS[1], ARGV[1], 'held', '_n', requests)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {0, 1, requests, domain}
`;
const decide = script(DECIDE);

export interface ConfirmationLimitOptions {
  redis: RedisClient;
  keyPrefix: string;
  /** Confirmations to one address per UTC day. */
  perDay: number;
  /** Keys the address and domain hashes (INTERNAL_AUTH_SECRET). */
  secret: string;
  now?: () => number;
}

export function createConfirmationLimit(opts: ConfirmationLimitOptions): ConfirmationLimit {
  const addressKey = createHmac('sha256', opts.secret).update('msa intake confirmation limit v1').digest();
  const domainKey = createHmac('sha256', opts.secret).update('msa intake requests per domain v1').digest();
  const now = opts.now ?? Date.now;

  return {
    async decide(requestId, address, job = {}) {
      const mailbox = mailboxKey(address);
      const hash = createHmac('sha256', addressKey).update(mailbox).digest('base64url');
      const domain = createHmac('sha256', domainKey).update(mailboxDomain(mailbox)).digest('base64url');
      const time = now();
      const today = dayOf(time);
      const days = job.addedAt !== undefined && dayOf(job.addedAt) === today ? [today] : [today, dayOf(time - DAY_MS)];
      const keys = days.flatMap((day) => [`${opts.keyPrefix}intake:confirmations:{${domain}}:${hash}:${day}`, `${opts.keyPrefix}intake:domain-requests:{${domain}}:${day}`]);
      const args = [requestId, opts.perDay, TTL_SECONDS];
      const [send, first, addressCount, domainCount] = (await decide(opts.redis, keys, args)) as [number, number, number, number];
      return { decision: send === 1 ? 'send' : 'hold', first: first === 1, requestsToday: { address: addressCount, domain: domainCount } };
    },
  };
}
