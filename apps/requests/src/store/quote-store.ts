// Redis storage of quotes: one string per quote holding the Quote as JSON,
// and one string per distinct quote content naming the quote that holds it
// (domain/quote-digest.ts), both expiring with the quote. This file is the
// only code that knows the keys. Each key has its own hash tag and every
// command touches one key, so it works the same on Redis Cluster.
import { Quote } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';
import { StoredRecordTooLarge } from '../domain/stored-size.js';

/**
 * The most bytes a stored quote may take. The largest the schema lets a
 * caller ask for (20 lines, each naming 20 unlisted colors of 60 characters)
 * is about 30 kB; a catalog of very long titles could go past it, and is then
 * refused rather than stored.
 */
export const QUOTE_MAX_STORED_BYTES = 48 * 1024;

export interface QuoteStore {
  /**
   * Stores a quote until its `expires_at`, and names it as the quote of its
   * `digest`. Throws StoredRecordTooLarge, before writing anything, when the
   * quote is over QUOTE_MAX_STORED_BYTES.
   */
  save(quote: Quote, digest: string): Promise<void>;
  /** The quote, or null when it never existed or has expired. */
  get(id: string): Promise<Quote | null>;
  /** The stored quote whose content has `digest`, or null when there is none (or it expired). */
  findByDigest(digest: string): Promise<Quote | null>;
}

export function createQuoteStore(redis: RedisClient, prefix: string): QuoteStore {
  const key = (id: string) => `${prefix}quote:{${id}}`;
  const digestKey = (digest: string) => `${prefix}quote-digest:{${digest}}`;

  async function get(id: string): Promise<Quote | null> {
    const raw = await redis.get(key(id));
    return raw ? Quote.parse(JSON.parse(raw)) : null;
  }

  return {
    async save(quote, digest) {
      const json = JSON.stringify(quote);
      const bytes = Buffer.byteLength(json);
      if (bytes > QUOTE_MAX_STORED_BYTES) throw new StoredRecordTooLarge(quote.quote_id, bytes, QUOTE_MAX_STORED_BYTES);
      // The lifetime comes from the quote itself, so `expires_at` and the keys' expiry cannot disagree.
      const ttlMs = Math.max(1, Date.parse(quote.expires_at) - Date.parse(quote.created_at));
      const sentAt = performance.now();
      await redis.set(key(quote.quote_id), json, 'PX', ttlMs);
      // The quote first, its name second, shorter by the time since the quote
      // was sent: the name never outlives the quote it names. NX keeps the
      // first of two identical quotes made at once; the second stays
      // readable by its own id.
      const nameTtlMs = Math.floor(ttlMs - (performance.now() - sentAt));
      if (nameTtlMs > 0) await redis.set(digestKey(digest), quote.quote_id, 'PX', nameTtlMs, 'NX');
    },

    get,

    async findByDigest(digest) {
      const id = await redis.get(digestKey(digest));
      return id ? get(id) : null;
    },
  };
}
