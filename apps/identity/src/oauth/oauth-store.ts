// What the authorization code grant keeps in Redis, each record under one
// hash tag so every multi-key step stays in one slot on a Cluster:
// - public clients registered through RFC 7591, expiring when unused;
// - consent interactions (the page between /oauth/authorize and the redirect),
//   the tries of each e-mailed code (by the code's digest, so nothing done to
//   the interaction resets them) and the wrong codes per mailbox and UTC day;
// - authorization codes, by the digest of the code;
// - grants: one per approval, holding the digest of the current refresh token
//   and the digests of the last 100 used ones, so a reused token revokes the
//   family; and, for the reuse grace, the digest of the token rotated last
//   with its successor sealed under a key derived from that token itself.
// No code, token or one-time code is kept in clear: only SHA-256 digests.
import { createHash } from 'node:crypto';
import { LIMITS, Mode, Scope } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { secondsUntilUtcMidnight, utcDay } from '@msa/service-kit/limits';
import { keysMatching } from '@msa/service-kit/redis';
import { z } from 'zod';

const DAY = 86_400;

export function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export const PublicClient = z.object({
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  scopes: z.array(Scope),
  created_at: z.string(),
});
export type PublicClient = z.infer<typeof PublicClient>;

/** What the authorization request asked for, kept from /oauth/authorize to the code. */
export const AuthorizationRequest = z.object({
  client_id: z.string(),
  client_name: z.string(),
  /** The metadata document's host; absent for a registered client. */
  client_host: z.string().optional(),
  /** Whether the operator verified the client; otherwise its name is self-declared. */
  client_verified: z.boolean().default(false),
  redirect_uri: z.string(),
  /** Whether the authorization request named it; then the token request must name it too (OAuth 2.1 §4.1.3). */
  redirect_uri_sent: z.boolean().default(true),
  state: z.string().optional(),
  code_challenge: z.string(),
  scopes: z.array(Scope),
  resource: z.string(),
  /** Started on the sandbox path: only sandbox can be chosen, and the issuer is the sandbox's. */
  sandbox: z.boolean(),
});
export type AuthorizationRequest = z.infer<typeof AuthorizationRequest>;

export const Interaction = z.object({
  request: AuthorizationRequest,
  /** Digest of the browser cookie that started it: only that browser may answer. */
  browser: z.string(),
  csrf: z.string(),
  step: z.enum(['email', 'code']),
  email: z.string().optional(),
  code_digest: z.string().optional(),
  code_expires_at: z.number().optional(),
});
export type Interaction = z.infer<typeof Interaction>;

/**
 * Who approved, in which mode: the principal of every token of the grant.
 * A person is their confirmed address; the sandbox without an e-mail has no
 * address and a principal of its own per approval.
 */
export const Approval = z.object({
  email: z.string().optional(),
  mode: Mode,
  /** The sandbox without an e-mail only: its principal id. */
  principal: z.string().optional(),
});
export type Approval = z.infer<typeof Approval>;

export const AuthorizationCode = z.object({
  request: AuthorizationRequest,
  approval: Approval,
  grant_id: z.string(),
});
export type AuthorizationCode = z.infer<typeof AuthorizationCode>;

export const Grant = z.object({
  grant_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  scopes: z.array(Scope),
  resource: z.string(),
  sandbox: z.boolean(),
  approval: Approval,
  created_at: z.string(),
});
export type Grant = z.infer<typeof Grant>;

export type RefreshOutcome =
  | { kind: 'rotated' }
  /** The token rotated last, presented again within the grace: its successor, sealed as it was stored. */
  | { kind: 'grace'; sealedSuccessor: string }
  | { kind: 'reused' }
  | { kind: 'unknown' }
  | { kind: 'revoked' };

/** Used refresh digests a grant remembers: a token older than the last this many rotations is refused as unknown. */
export const USED_REFRESH_KEPT = 100;

// One script, one slot: compares the presented refresh digest with the
// grant's current one and either rotates it or, for a used one, revokes the
// grant. The used digests are a list capped at USED_REFRESH_KEPT, newest
// first, so a grant refreshed all day costs a bounded key; a set written by
// an earlier version becomes that list once.
// The token rotated last stays answerable for ARGV[6] ms (Redis' clock, the
// same for every identity process): hosts that refresh in parallel race
// with one token, and the losers get the winner's successor instead of
// revoking the grant. Only the last rotation has a grace, so the successor
// handed out is always the current token.
const ROTATE_REFRESH = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'unknown'} end
if status ~= 'active' then return {'revoked'} end
if redis.call('TYPE', KEYS[2]).ok == 'set' then
  local old = redis.call('SMEMBERS', KEYS[2])
  redis.call('DEL', KEYS[2])
  if #old > 0 then
    redis.call('RPUSH', KEYS[2], unpack(old, 1, math.min(#old, tonumber(ARGV[4]))))
    redis.call('EXPIRE', KEYS[2], ARGV[3])
  end
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if redis.call('HGET', KEYS[1], 'refresh') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'refresh', ARGV[2])
  if tonumber(ARGV[6]) > 0 then
    redis.call('HSET', KEYS[1], 'grace_digest', ARGV[1], 'grace_sealed', ARGV[5], 'grace_until', string.format('%d', now + tonumber(ARGV[6])))
  else
    redis.call('HDEL', KEYS[1], 'grace_digest', 'grace_sealed', 'grace_until')
  end
  redis.call('LPUSH', KEYS[2], ARGV[1])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[4]) - 1)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  return {'rotated'}
end
if redis.call('HGET', KEYS[1], 'grace_digest') == ARGV[1] and now < tonumber(redis.call('HGET', KEYS[1], 'grace_until') or '0') then
  return {'grace', redis.call('HGET', KEYS[1], 'grace_sealed')}
end
if redis.call('LPOS', KEYS[2], ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'revoked')
  return {'reused'}
end
return {'unknown'}
`;

// Whether a digest is the grant's current refresh token or one of its used ones.
const HOLDS_REFRESH = `
if redis.call('HGET', KEYS[1], 'refresh') == ARGV[1] then return 1 end
if redis.call('TYPE', KEYS[2]).ok == 'list' and redis.call('LPOS', KEYS[2], ARGV[1]) then return 1 end
if redis.call('TYPE', KEYS[2]).ok == 'set' and redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then return 1 end
return 0
`;

// A DECR on a key that expired meanwhile would leave -1 without a TTL.
const FORGIVE_TRY = `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('DECR', KEYS[1]) end
return 0`;

export function createOAuthStore(redis: RedisClient, prefix: string) {
  const clientKey = (id: string) => `${prefix}oauth-client:{${id}}`;
  const interactionKey = (id: string) => `${prefix}consent:{${id}}`;
  const codeTriesKey = (codeDigest: string) => `${prefix}consent-code:{${codeDigest}}:tries`;
  const wrongCodesKey = (mailbox: string, day: string) => `${prefix}consent-wrong:{${mailbox}}:${day}`;
  const codeKey = (codeDigest: string) => `${prefix}oauth-code:{${codeDigest}}`;
  const grantKey = (id: string) => `${prefix}grant:{${id}}`;
  const usedKey = (id: string) => `${prefix}grant:{${id}}:used`;
  const clientTtl = LIMITS.publicClientIdleDays * DAY;
  const grantTtl = LIMITS.refreshTokenIdleDays * DAY;

  async function readJson<T>(key: string, schema: z.ZodType<T>): Promise<T | null> {
    const raw = await redis.get(key);
    if (raw === null) return null;
    const parsed = schema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  }

  return {
    async saveClient(client: PublicClient): Promise<void> {
      await redis.set(clientKey(client.client_id), JSON.stringify(client), 'EX', clientTtl);
    },
    /** The client, its idle expiry pushed back by this use. */
    async findClient(clientId: string): Promise<PublicClient | null> {
      const client = await readJson(clientKey(clientId), PublicClient);
      if (client) await redis.expire(clientKey(clientId), clientTtl);
      return client;
    },

    async saveInteraction(id: string, interaction: Interaction): Promise<void> {
      await redis.set(interactionKey(id), JSON.stringify(interaction), 'EX', LIMITS.consentInteractionSeconds);
    },
    findInteraction: (id: string) => readJson(interactionKey(id), Interaction),
    /** Updates the interaction, keeping its expiry. */
    async updateInteraction(id: string, interaction: Interaction): Promise<void> {
      await redis.set(interactionKey(id), JSON.stringify(interaction), 'KEEPTTL', 'XX');
    },
    /** Ends the interaction; true for the one caller that ended it, so an approval happens once. */
    async claimInteraction(id: string): Promise<boolean> {
      return (await redis.del(interactionKey(id))) === 1;
    },
    /**
     * Counts one try of the e-mailed code whose digest is `codeDigest` and
     * returns the count so far. The count lives as long as the code, whatever
     * happens to the interaction meanwhile: a restart or a new code cannot
     * reset it under a guess already in flight.
     */
    async countCodeTry(codeDigest: string, codeExpiresAt: number): Promise<number> {
      const key = codeTriesKey(codeDigest);
      const [[, count]] = (await redis.multi().incr(key).pexpireat(key, codeExpiresAt + 1_000).exec()) as [[unknown, number]];
      return count;
    },
    /**
     * Counts a try against the mailbox's wrong codes of the UTC day (before
     * the code is compared, so parallel guesses cannot share one count) and
     * returns the count so far; `forgiveTry` takes back the try of a right code.
     */
    async countMailboxTry(mailbox: string, now = new Date()): Promise<number> {
      const key = wrongCodesKey(mailbox, utcDay(now));
      const [[, count]] = (await redis.multi().incr(key).expire(key, secondsUntilUtcMidnight(now) + 60).exec()) as [[unknown, number]];
      return count;
    },
    async forgiveTry(mailbox: string, now = new Date()): Promise<void> {
      await redis.eval(FORGIVE_TRY, 1, wrongCodesKey(mailbox, utcDay(now)));
    },
    /** The mailbox's wrong codes so far on the UTC day of `now`. */
    async wrongCodes(mailbox: string, now = new Date()): Promise<number> {
      return Number((await redis.get(wrongCodesKey(mailbox, utcDay(now)))) ?? 0);
    },

    async saveCode(code: string, record: AuthorizationCode): Promise<void> {
      const key = codeKey(digest(code));
      await redis.multi().hset(key, { record: JSON.stringify(record), uses: '0' }).expire(key, LIMITS.authorizationCodeLifetimeSeconds).exec();
    },
    /**
     * Counts a use of the code. The first use gets the record; a later one gets
     * `reused` with the grant its first use made, to revoke.
     */
    async useCode(code: string): Promise<{ kind: 'first'; record: AuthorizationCode } | { kind: 'reused'; grantId: string } | { kind: 'unknown' }> {
      const key = codeKey(digest(code));
      const uses = await redis.hincrby(key, 'uses', 1);
      const raw = await redis.hget(key, 'record');
      if (raw === null) {
        // A code that never existed: the increment made an empty hash, remove it.
        await redis.del(key);
        return { kind: 'unknown' };
      }
      const record = AuthorizationCode.parse(JSON.parse(raw));
      return uses === 1 ? { kind: 'first', record } : { kind: 'reused', grantId: record.grant_id };
    },

    async createGrant(grant: Grant, refreshDigest: string): Promise<void> {
      await redis
        .multi()
        .hset(grantKey(grant.grant_id), { grant: JSON.stringify(grant), status: 'active', refresh: refreshDigest })
        .expire(grantKey(grant.grant_id), grantTtl)
        .exec();
    },
    async findGrant(grantId: string): Promise<{ grant: Grant; active: boolean } | null> {
      const [raw, status] = await redis.hmget(grantKey(grantId), 'grant', 'status');
      if (!raw) return null;
      return { grant: Grant.parse(JSON.parse(raw)), active: status === 'active' };
    },
    async grantActive(grantId: string): Promise<boolean> {
      return (await redis.hget(grantKey(grantId), 'status')) === 'active';
    },
    async revokeGrant(grantId: string): Promise<void> {
      // XX-like: only a grant that exists is marked, so a guess creates nothing.
      if (await redis.exists(grantKey(grantId))) await redis.hset(grantKey(grantId), 'status', 'revoked');
    },
    /**
     * Erases a grant with its refresh digests (the right to erasure): its
     * tokens then find no active grant, exactly as revoked ones. Both keys
     * share the grant's hash tag.
     */
    async eraseGrant(grantId: string): Promise<void> {
      await redis.del(grantKey(grantId), usedKey(grantId));
    },
    /** Every stored grant's id, by a SCAN of every master: the operator's fallback for grants approved before the person index. */
    async allGrantIds(): Promise<string[]> {
      const keys = await keysMatching(redis, `${prefix}grant:{*}`);
      return keys.flatMap((key) => /^.*grant:\{(g[0-9A-Za-z]{24})\}$/.exec(key)?.[1] ?? []);
    },
    /**
     * Rotates the refresh token whose digest is `presentedDigest` to the one
     * whose digest is `nextDigest`. `sealedNext` is the new token sealed for
     * a repeat of this request within `graceMs`.
     */
    async rotateRefresh(grantId: string, presentedDigest: string, nextDigest: string, sealedNext: string, graceMs: number): Promise<RefreshOutcome> {
      const [kind, sealed] = (await redis.eval(
        ROTATE_REFRESH,
        2,
        grantKey(grantId),
        usedKey(grantId),
        presentedDigest,
        nextDigest,
        String(grantTtl),
        String(USED_REFRESH_KEPT),
        sealedNext,
        String(Math.max(0, Math.floor(graceMs))),
      )) as [string, string | undefined];
      if (kind === 'grace') return { kind, sealedSuccessor: sealed ?? '' };
      return { kind: kind as 'rotated' | 'reused' | 'unknown' | 'revoked' };
    },
    /** Whether the refresh token with this digest is the grant's current one or a used one: only its holder may revoke it. */
    async holdsRefresh(grantId: string, refreshDigest: string): Promise<boolean> {
      return (await redis.eval(HOLDS_REFRESH, 2, grantKey(grantId), usedKey(grantId), refreshDigest)) === 1;
    },
  };
}
export type OAuthStore = ReturnType<typeof createOAuthStore>;
