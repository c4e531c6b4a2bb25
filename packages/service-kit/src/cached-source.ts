// @module `createCachedSource`: the last good copy of a data source in memory, refreshed after `refreshMs`, a failing source left alone for `retryMs`
// Keeps the last good copy of a source in memory. A copy is served for
// `refreshMs`; the next call after that asks the source again (one request at
// a time, however many callers wait). When the source fails, callers get the
// last good copy and the failure is logged; the source is then left alone for
// `retryMs`, so a feed that is down is not hit by every incoming request.
// Only when no copy was ever loaded does a call fail, with `unavailable()`.
import { createHash } from 'node:crypto';
import type { Source } from './data-source.js';
import type { Logger } from './logger.js';

export interface Snapshot<V> {
  value: V;
  /** Hash of the loaded data; unchanged as long as the content is. */
  version: string;
  /** When this content was first loaded; kept across refreshes that bring nothing new. */
  generatedAt: Date;
}

export interface CachedSource<V> {
  /** The current copy, refreshed first when it is older than `refreshMs`. */
  get(): Promise<Snapshot<V>>;
  /** The current copy when it needs no refresh (what `get` would answer at once), else undefined: a hot path's answer without a promise. */
  fresh?(): Snapshot<V> | undefined;
}

export interface CachedSourceOptions<T, V> {
  source: Source<T>;
  /** Turns loaded data into what callers use (an index); runs once per new content. */
  prepare: (data: T) => V;
  refreshMs: number;
  /** Pause after a failed load before the source is asked again. */
  retryMs: number;
  logger: Logger;
  unavailable: () => Error;
  now?: () => number;
}

export function createCachedSource<T, V>(opts: CachedSourceOptions<T, V>): CachedSource<V> {
  const { source, prepare, refreshMs, retryMs, logger, unavailable, now = Date.now } = opts;
  let snapshot: Snapshot<V> | undefined;
  let freshUntil = 0;
  let nextAttemptAt = 0;
  let inFlight: Promise<Snapshot<V>> | undefined;

  async function reload(): Promise<Snapshot<V>> {
    try {
      const data = await source.load();
      const version = createHash('sha256').update(JSON.stringify(data)).digest('base64url');
      if (!snapshot || snapshot.version !== version) {
        snapshot = { value: prepare(data), version, generatedAt: new Date(now()) };
        logger.info({ source: source.name, version }, 'source loaded');
      }
      freshUntil = now() + refreshMs;
      return snapshot;
    } catch (err) {
      nextAttemptAt = now() + retryMs;
      if (snapshot) {
        logger.warn({ err, source: source.name, since: snapshot.generatedAt }, 'source failed; serving the last good copy');
        return snapshot;
      }
      logger.warn({ err, source: source.name }, 'source failed and no copy is cached');
      throw unavailable();
    }
  }

  return {
    fresh() {
      return snapshot && now() < freshUntil ? snapshot : undefined;
    },
    async get() {
      const t = now();
      if (snapshot && t < freshUntil) return snapshot;
      if (t < nextAttemptAt) {
        if (snapshot) return snapshot;
        throw unavailable();
      }
      inFlight ??= reload().finally(() => {
        inFlight = undefined;
      });
      return inFlight;
    },
  };
}
