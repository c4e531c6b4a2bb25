// What identity keeps for the rights of access and erasure:
//   <prefix>person-index:{<mailbox hmac>}    set: `grant:<id>` and `cred:<client id>` tied to one mailbox
//   <prefix>privacy-erasure:{<subject hmac>} string: when that mailbox's (or key's) data was erased
// The mailbox (service-kit `mailboxKey`) is hashed with a key derived from
// INTERNAL_AUTH_SECRET, as the worker's confirmation limit hashes it, so no
// key name can be matched against a list of addresses. Every command names
// one key: nothing spans slots on a Cluster.
//
// An index holding credentials lives as long as they do (no TTL); one with
// grants only, as long as its newest grant may (refresh tokens' idle days,
// pushed on by every approval and refresh). The erasure record is kept as
// long as a live request, the longest anything it speaks of is kept.
import { createHmac } from 'node:crypto';
import { LIMITS } from '@msa/contracts';
import { mailboxKey, type RedisClient } from '@msa/service-kit';

const DAY = 86_400;
/** As long as a live request is kept by default (the requests service's SHOP_REQUEST_LIVE_RETENTION_DAYS). */
export const ERASURE_RECORD_TTL_SECONDS = LIMITS.liveShopRequestRetentionDays * DAY;

// KEYS: index. ARGV: member, ttl seconds ('none': keep for ever).
const ADD = `
redis.call('SADD', KEYS[1], ARGV[1])
if ARGV[2] == 'none' then
  redis.call('PERSIST', KEYS[1])
else
  local ttl = redis.call('TTL', KEYS[1])
  if ttl ~= -1 and ttl < tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
end
return 1`;

export type ErasureSubject = { mailbox: string } | { clientId: string };

export interface PersonIndexMembers {
  grantIds: string[];
  clientIds: string[];
}

export function createPrivacyStore(redis: RedisClient, prefix: string, secret: string) {
  const hmacKey = createHmac('sha256', secret).update('msa privacy person v1').digest();
  const hash = (text: string) => createHmac('sha256', hmacKey).update(text).digest('base64url');
  const indexKey = (email: string) => `${prefix}person-index:{${hash(`mailbox\n${mailboxKey(email)}`)}}`;
  const erasureKey = (subject: ErasureSubject) =>
    `${prefix}privacy-erasure:{${hash('mailbox' in subject ? `mailbox\n${mailboxKey(subject.mailbox)}` : `client\n${subject.clientId}`)}}`;

  return {
    /** Files a grant under the mailbox that approved it; called at approval and at each refresh. */
    async addGrant(email: string, grantId: string): Promise<void> {
      await redis.eval(ADD, 1, indexKey(email), `grant:${grantId}`, String(LIMITS.refreshTokenIdleDays * DAY));
    },
    /** Files credentials under their contact mailbox. */
    async addCredentials(email: string, clientId: string): Promise<void> {
      await redis.eval(ADD, 1, indexKey(email), `cred:${clientId}`, 'none');
    },
    async membersOf(email: string): Promise<PersonIndexMembers> {
      const members = await redis.smembers(indexKey(email));
      const of = (kind: string) => members.filter((m) => m.startsWith(`${kind}:`)).map((m) => m.slice(kind.length + 1));
      return { grantIds: of('grant'), clientIds: of('cred') };
    },
    async forget(email: string): Promise<void> {
      await redis.del(indexKey(email));
    },
    /** Records that the subject's data was erased: a keyed hash and a time, nothing else. */
    async recordErasure(subject: ErasureSubject, at: Date): Promise<void> {
      await redis.set(erasureKey(subject), at.toISOString(), 'EX', ERASURE_RECORD_TTL_SECONDS);
    },
    async erasedAt(subject: ErasureSubject): Promise<string | null> {
      return redis.get(erasureKey(subject));
    },
  };
}
export type PrivacyStore = ReturnType<typeof createPrivacyStore>;
