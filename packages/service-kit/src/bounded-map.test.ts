import { describe, expect, it } from 'vitest';
import { getOrBuild } from './bounded-map.js';

describe('getOrBuild', () => {
  it('builds a missing value once and answers the kept one afterwards', () => {
    const cache = new Map<string, number>();
    let builds = 0;
    expect(getOrBuild(cache, 'a', 4, () => ++builds)).toBe(1);
    expect(getOrBuild(cache, 'a', 4, () => ++builds)).toBe(1);
    expect(builds).toBe(1);
  });

  it('drops the oldest entry when the limit is reached', () => {
    const cache = new Map<string, string>();
    for (const key of ['a', 'b', 'c']) getOrBuild(cache, key, 2, () => key.toUpperCase());
    expect([...cache.keys()]).toEqual(['b', 'c']);
  });

  it('keeps nothing when the build throws', () => {
    const cache = new Map<string, string>();
    expect(() =>
      getOrBuild(cache, 'bad', 2, () => {
        throw new Error('invalid');
      }),
    ).toThrow('invalid');
    expect(cache.size).toBe(0);
  });
});
