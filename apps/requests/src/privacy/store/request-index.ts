// Which shop requests belong to a person, for the rights of access and
// erasure: one set of request ids per subject, a subject being a contact or
// submitter mailbox (as mailboxKey counts it) or an owner id.
//   <prefix>privacy-index:{<subject hmac>}  set of request ids
// The subject is hashed with a key derived from INTERNAL_AUTH_SECRET, so a
// key name cannot be matched against a list of addresses. Each set is one
// key in one slot (no multi-key command on a Cluster); its TTL is pushed to
// the longest of its requests', so it never outlives them by much, and ids
// whose request expired are skipped on reading.
import { createHmac } from 'node:crypto';
import type { ShopRequestBody, ConfirmedSubmitter } from '@msa/contracts';
import { mailboxKey, type RedisClient } from '@msa/service-kit';

export interface IndexedRequest {
  id: string;
  body: Pick<ShopRequestBody, 'organization'>;
  ownerId: string;
  submitter?: ConfirmedSubmitter | undefined;
}

export interface RequestIndex {
  /** Adds a stored request under each of its subjects, for `ttlSeconds` at least. */
  add(request: IndexedRequest, ttlSeconds: number): Promise<void>;
  /** The ids stored under a mailbox or an owner. */
  idsOf(subject: IndexSubject): Promise<string[]>;
  /** Forgets a subject (an erased mailbox). */
  forget(subject: IndexSubject): Promise<void>;
}

export type IndexSubject = { mailbox: string } | { owner: string };

/** The subjects a request is found under: its contact's and submitter's mailboxes, and its owner. */
export function subjectsOf(request: IndexedRequest): IndexSubject[] {
  const mailboxes = new Set([mailboxKey(request.body.organization.email)]);
  if (request.submitter?.email) mailboxes.add(mailboxKey(request.submitter.email));
  return [...[...mailboxes].map((mailbox) => ({ mailbox })), { owner: request.ownerId }];
}

// SADD, then the longer of the set's TTL and the request's.
const ADD = `
redis.call('SADD', KEYS[1], ARGV[2])
local ttl = redis.call('TTL', KEYS[1])
if ttl < tonumber(ARGV[1]) then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return 1`;

export function createRequestIndex(redis: RedisClient, prefix: string, secret: string): RequestIndex {
  const hmacKey = createHmac('sha256', secret).update('msa privacy index v1').digest();
  const keyOf = (subject: IndexSubject) => {
    const text = 'mailbox' in subject ? `mailbox\n${mailboxKey(subject.mailbox)}` : `owner\n${subject.owner}`;
    return `${prefix}privacy-index:{${createHmac('sha256', hmacKey).update(text).digest('base64url')}}`;
  };
  return {
    async add(request, ttlSeconds) {
      // One key per subject, each in its own slot: one command each.
      for (const subject of subjectsOf(request)) await redis.eval(ADD, 1, keyOf(subject), String(ttlSeconds), request.id);
    },
    idsOf: (subject) => redis.smembers(keyOf(subject)),
    async forget(subject) {
      await redis.del(keyOf(subject));
    },
  };
}
