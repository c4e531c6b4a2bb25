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
 *   <prefix>intake:confirmations:{<domain hmac>}:<address hmac>:<UTC day>  string, 2 days:
 *     JSON {granted: confirmations granted, asked: live requests to the
 *     address that day, units: {<request id>: 1 sent | 0 held}}
 *   <prefix>intake:domain-requests:{<domain hmac>}:<UTC day>  string, 2 days:
 *     live requests to the domain that day
 *
 * That is service-kit's daily quota remembering refusals, with the domain's
 * count as its tally: this file only names the mailbox and its keys. No
 * address or domain is in a key: the address is normalised as quotas count
 * people (service-kit `mailboxKey`: case, `+tag` and Gmail's dots ignored,
 * so `erika+1@` is no second mailbox), and it and its domain are hashed with
 * keys derived from INTERNAL_AUTH_SECRET, so the key names cannot be matched
 * against a list of addresses. The domain is the hash tag: one script
 * decides and counts both, in one slot of a Cluster (live requests are few,
 * so a large domain's slot stays small). The decision of a request is
 * stored with it, so a retry of the same job gets the same answer and is
 * counted once; the day before is consulted too, for a retry just after
 * midnight.
 */
import { createHmac } from 'node:crypto';
import { LIMITS } from '@msa/contracts';
import { createDailyQuota, mailboxDomain, mailboxKey, utcDay, type RedisClient } from '@msa/service-kit';

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

/** The privacy notice states this lifetime of keys that name a mailbox. */
const RETENTION_SECONDS = LIMITS.limiterKeyRetentionDays * 24 * 3600;

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
  // The label names the layout: v2 keys hold a string where v1's held a hash, so neither is read as the other.
  const addressKey = createHmac('sha256', opts.secret).update('msa intake confirmation limit v2').digest();
  const domainKey = createHmac('sha256', opts.secret).update('msa intake requests per domain v1').digest();
  const now = opts.now ?? Date.now;
  const quota = createDailyQuota({
    redis: opts.redis,
    keyPrefix: `${opts.keyPrefix}intake:confirmations`,
    policy: 'confirmations-day',
    points: opts.perDay,
    retentionSeconds: RETENTION_SECONDS,
    rememberRefusals: true,
  });

  return {
    async decide(requestId, address, job = {}) {
      const mailbox = mailboxKey(address);
      const hash = createHmac('sha256', addressKey).update(mailbox).digest('base64url');
      const domain = createHmac('sha256', domainKey).update(mailboxDomain(mailbox)).digest('base64url');
      const time = new Date(now());
      const addedToday = job.addedAt !== undefined && utcDay(new Date(job.addedAt)) === utcDay(time);
      const decided = await quota.reserve(`{${domain}}:${hash}`, time, requestId, {
        tally: `${opts.keyPrefix}intake:domain-requests:{${domain}}`,
        lookBack: !addedToday,
      });
      return {
        decision: decided.allowed ? 'send' : 'hold',
        first: decided.first === true,
        requestsToday: { address: decided.asked ?? 0, domain: decided.tally ?? 0 },
      };
    },
  };
}
