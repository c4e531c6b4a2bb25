// @module `getOrBuild(cache, key, limit, build)`: a memo whose keys come from outside, oldest entry out first, so the map cannot grow without bound
/**
 * The value of `key` in `cache`, built with `build` when missing and kept,
 * the oldest entry going first once `limit` are kept. For memos whose keys
 * come from outside (queries, addresses, prices): the map cannot grow
 * without bound. `build` may throw, and then nothing is kept.
 */
export function getOrBuild<K, V>(cache: Map<K, V>, key: K, limit: number, build: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    value = build();
    if (cache.size >= limit) cache.delete(cache.keys().next().value as K);
    cache.set(key, value);
  }
  return value;
}
