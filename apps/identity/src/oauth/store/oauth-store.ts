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
import { LIMITS } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { secondsUntilUtcMidnight, utcDay } from '@msa/service-kit/limits';
import { keysMatching } from '@msa/service-kit/redis';
import type { z } from 'zod';
import { digest } from '../rules/digest.js';
import { oauthKeys, type OAuthKeys } from './oauth-keys.js';
import { AuthorizationCode, Grant, Interaction, PublicClient, USED_REFRESH_KEPT, type RefreshOutcome } from './oauth-records.js';
import { FORGIVE_TRY, HOLDS_REFRESH, ROTATE_REFRESH } from './oauth-scripts.js';

export { digest } from '../rules/digest.js';
export * from './oauth-records.js';

const DAY = 86_400;

interface Part {
  redis: RedisClient;
  keys: OAuthKeys;
  readJson<T>(key: string, schema: z.ZodType<T>): Promise<T | null>;
}

/** Public clients registered through RFC 7591, expiring when unused. */
function clientRecords({ redis, keys, readJson }: Part) {
  const clientTtl = LIMITS.publicClientIdleDays * DAY;
  return {
    async saveClient(client: PublicClient): Promise<void> {
      await redis.set(keys.client(client.client_id), JSON.stringify(client), 'EX', clientTtl);
    },
    /** The client, its idle expiry pushed back by this use. */
    async findClient(clientId: string): Promise<PublicClient | null> {
      const client = await readJson(keys.client(clientId), PublicClient);
      if (client) await redis.expire(keys.client(clientId), clientTtl);
      return client;
    },
  };
}

/** Consent interactions, the tries of each e-mailed code and the wrong codes per mailbox and UTC day. */
function interactionRecords({ redis, keys, readJson }: Part) {
  return {
    async saveInteraction(id: string, interaction: Interaction): Promise<void> {
      await redis.set(keys.interaction(id), JSON.stringify(interaction), 'EX', LIMITS.consentInteractionSeconds);
    },
    findInteraction: (id: string) => readJson(keys.interaction(id), Interaction),
    /** Updates the interaction, keeping its expiry. */
    async updateInteraction(id: string, interaction: Interaction): Promise<void> {
      await redis.set(keys.interaction(id), JSON.stringify(interaction), 'KEEPTTL', 'XX');
    },
    /** Ends the interaction; true for the one caller that ended it, so an approval happens once. */
    async claimInteraction(id: string): Promise<boolean> {
      return (await redis.del(keys.interaction(id))) === 1;
    },
    /**
     * Counts one try of the e-mailed code whose digest is `codeDigest` and
     * returns the count so far. The count lives as long as the code, whatever
     * happens to the interaction meanwhile: a restart or a new code cannot
     * reset it under a guess already in flight.
     */
    async countCodeTry(codeDigest: string, codeExpiresAt: number): Promise<number> {
      const key = keys.codeTries(codeDigest);
      const [[, count]] = (await redis.multi().incr(key).pexpireat(key, codeExpiresAt + 1_000).exec()) as [[unknown, number]];
      return count;
    },
    /**
     * Counts a try against the mailbox's wrong codes of the UTC day (before
     * the code is compared, so parallel guesses cannot share one count) and
     * returns the count so far; `forgiveTry` takes back the try of a right code.
     */
    async countMailboxTry(mailbox: string, now = new Date()): Promise<number> {
      const key = keys.wrongCodes(mailbox, utcDay(now));
      const [[, count]] = (await redis.multi().incr(key).expire(key, secondsUntilUtcMidnight(now) + 60).exec()) as [[unknown, number]];
      return count;
    },
    async forgiveTry(mailbox: string, now = new Date()): Promise<void> {
      await redis.eval(FORGIVE_TRY, 1, keys.wrongCodes(mailbox, utcDay(now)));
    },
    /** The mailbox's wrong codes so far on the UTC day of `now`. */
    async wrongCodes(mailbox: string, now = new Date()): Promise<number> {
      return Number((await redis.get(keys.wrongCodes(mailbox, utcDay(now)))) ?? 0);
    },
  };
}

/** Authorization codes, by the digest of the code. */
function codeRecords({ redis, keys }: Part) {
  return {
    async saveCode(code: string, record: AuthorizationCode): Promise<void> {
      const key = keys.code(digest(code));
      await redis.multi().hset(key, { record: JSON.stringify(record), uses: '0' }).expire(key, LIMITS.authorizationCodeLifetimeSeconds).exec();
    },
    /**
     * Counts a use of the code. The first use gets the record; a later one gets
     * `reused` with the grant its first use made, to revoke.
     */
    async useCode(code: string): Promise<{ kind: 'first'; record: AuthorizationCode } | { kind: 'reused'; grantId: string } | { kind: 'unknown' }> {
      const key = keys.code(digest(code));
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
  };
}

/** Grants: one per approval, its status and the digests of its current and used refresh tokens. */
function grantRecords({ redis, keys }: Part) {
  const grantTtl = LIMITS.refreshTokenIdleDays * DAY;
  return {
    async createGrant(grant: Grant, refreshDigest: string): Promise<void> {
      await redis
        .multi()
        .hset(keys.grant(grant.grant_id), { grant: JSON.stringify(grant), status: 'active', refresh: refreshDigest })
        .expire(keys.grant(grant.grant_id), grantTtl)
        .exec();
    },
    async findGrant(grantId: string): Promise<{ grant: Grant; active: boolean } | null> {
      const [raw, status] = await redis.hmget(keys.grant(grantId), 'grant', 'status');
      if (!raw) return null;
      return { grant: Grant.parse(JSON.parse(raw)), active: status === 'active' };
    },
    async grantActive(grantId: string): Promise<boolean> {
      return (await redis.hget(keys.grant(grantId), 'status')) === 'active';
    },
    async revokeGrant(grantId: string): Promise<void> {
      // XX-like: only a grant that exists is marked, so a guess creates nothing.
      if (await redis.exists(keys.grant(grantId))) await redis.hset(keys.grant(grantId), 'status', 'revoked');
    },
    /**
     * Erases a grant with its refresh digests (the right to erasure): its
     * tokens then find no active grant, exactly as revoked ones. Both keys
     * share the grant's hash tag.
     */
    async eraseGrant(grantId: string): Promise<void> {
      await redis.del(keys.grant(grantId), keys.usedRefresh(grantId));
    },
    /** Every stored grant's id, by a SCAN of every master: the operator's fallback for grants approved before the person index. */
    async allGrantIds(): Promise<string[]> {
      const found = await keysMatching(redis, keys.allGrants);
      return found.flatMap((key) => /^.*grant:\{(g[0-9A-Za-z]{24})\}$/.exec(key)?.[1] ?? []);
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
        keys.grant(grantId),
        keys.usedRefresh(grantId),
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
      return (await redis.eval(HOLDS_REFRESH, 2, keys.grant(grantId), keys.usedRefresh(grantId), refreshDigest)) === 1;
    },
  };
}

export function createOAuthStore(redis: RedisClient, prefix: string) {
  const part: Part = {
    redis,
    keys: oauthKeys(prefix),
    async readJson<T>(key: string, schema: z.ZodType<T>): Promise<T | null> {
      const raw = await redis.get(key);
      if (raw === null) return null;
      const parsed = schema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : null;
    },
  };
  return { ...clientRecords(part), ...interactionRecords(part), ...codeRecords(part), ...grantRecords(part) };
}
export type OAuthStore = ReturnType<typeof createOAuthStore>;
