// What the Client ID Metadata Document resolver keeps in Redis, each family
// bounded per caller:
// - documents whose authorization request passed the redirect check, as long
//   as their Cache-Control allows (at most 24 h);
// - fetch failures, for a few minutes, so a blackholed URL costs one fetch;
// - the distinct document URLs fetched per host and per client address in
//   the hour, which is what bounds the first two: a new query string is a
//   new URL, and each costs one of the caller's URLs.
import { createHash } from 'node:crypto';
import type { RedisClient } from '@msa/service-kit';
import type { MetadataClient } from '../rules/client-metadata-document.js';

/** A failure's reason is shown on the error page; a validation message can quote a whole URI, so it is cut. */
export const FAILURE_MESSAGE_MAX_CHARS = 300;

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

// One key per scope: a URL already counted this hour is free, a new one is
// added while the set has room. The hour starts with the first URL.
const COUNT_URL = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {1, redis.call('PTTL', KEYS[1])} end
local n = redis.call('SCARD', KEYS[1])
if n >= tonumber(ARGV[2]) then return {0, redis.call('PTTL', KEYS[1])} end
redis.call('SADD', KEYS[1], ARGV[1])
if n == 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, redis.call('PTTL', KEYS[1])}
`;

export type UrlScope = 'host' | 'address';

export function createClientMetadataStore(redis: RedisClient, prefix: string) {
  const documentKey = (clientId: string) => `${prefix}cimd:${sha256(clientId)}`;
  const failureKey = (clientId: string) => `${prefix}cimd-fail:${sha256(clientId)}`;
  const urlsKey = (scope: UrlScope, id: string) => `${prefix}cimd-urls:${scope}:${id}`;

  return {
    async findDocument(clientId: string): Promise<MetadataClient | null> {
      const raw = await redis.get(documentKey(clientId));
      return raw === null ? null : (JSON.parse(raw) as MetadataClient);
    },
    async saveDocument(clientId: string, client: MetadataClient, ttlSeconds: number): Promise<void> {
      await redis.set(documentKey(clientId), JSON.stringify(client), 'EX', ttlSeconds);
    },
    async findFailure(clientId: string): Promise<string | null> {
      return redis.get(failureKey(clientId));
    },
    async saveFailure(clientId: string, message: string, ttlSeconds: number): Promise<void> {
      await redis.set(failureKey(clientId), message.slice(0, FAILURE_MESSAGE_MAX_CHARS), 'EX', ttlSeconds);
    },
    /** Counts `url` among the hour's distinct URLs of a host or an address; refused once `cap` others are counted. */
    async countUrl(scope: UrlScope, id: string, url: string, cap: number): Promise<{ allowed: boolean; resetSeconds: number }> {
      // 16 bytes of the digest tell URLs apart well enough and keep the set small.
      const member = sha256(url).slice(0, 32);
      const [allowed, pttl] = (await redis.eval(COUNT_URL, 1, urlsKey(scope, id), member, String(cap), '3600000')) as [number, number];
      return { allowed: allowed === 1, resetSeconds: Math.max(1, Math.ceil(pttl / 1000)) };
    },
  };
}
export type ClientMetadataStore = ReturnType<typeof createClientMetadataStore>;
