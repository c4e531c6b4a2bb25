// Redis storage of quotes: one string per quote holding the Quote as JSON,
// expiring with the quote. This file is the only code that knows the key.
// The id is the key's hash tag, so whatever is later stored beside a quote
// under the same tag lands in its Cluster slot.
import { Quote } from '@msa/contracts';
import type { RedisClient } from '@msa/service-kit';

export interface QuoteStore {
  /** Stores a quote until its `expires_at`. */
  save(quote: Quote): Promise<void>;
  /** The quote, or null when it never existed or has expired. */
  get(id: string): Promise<Quote | null>;
}

export function createQuoteStore(redis: RedisClient, prefix: string): QuoteStore {
  const key = (id: string) => `${prefix}quote:{${id}}`;

  return {
    async save(quote) {
      // The lifetime comes from the quote itself, so `expires_at` and the key's expiry cannot disagree.
      const ttlMs = Math.max(1, Date.parse(quote.expires_at) - Date.parse(quote.created_at));
      await redis.set(key(quote.quote_id), JSON.stringify(quote), 'PX', ttlMs);
    },

    async get(id) {
      const raw = await redis.get(key(id));
      return raw ? Quote.parse(JSON.parse(raw)) : null;
    },
  };
}
