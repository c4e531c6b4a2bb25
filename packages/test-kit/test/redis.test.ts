import { afterAll, describe, expect, it } from 'vitest';
import { createTestRedis, deleteByPattern, keysMatching, testPrefix } from '../src/redis.js';

describe('testPrefix', () => {
  it('differs per call so test files never share keys', () => {
    expect(testPrefix('x')).not.toBe(testPrefix('x'));
    expect(testPrefix('catalog')).toMatch(/^test:catalog:[0-9a-f]{8}:$/);
  });
});

describe('createTestRedis', () => {
  const other: { cleanup?: () => Promise<void> } = {};
  afterAll(async () => other.cleanup?.());

  it('talks to a real Redis and cleans up only its own keys, hash-tagged ones included', async () => {
    const mine = await createTestRedis('test-kit');
    const theirs = await createTestRedis('test-kit-other');
    other.cleanup = theirs.cleanup;
    await mine.redis.set(`${mine.prefix}a`, '1');
    await mine.redis.set(`{${mine.prefix}intake}:job`, '1');
    await theirs.redis.set(`${theirs.prefix}b`, '1');

    await mine.cleanup();

    expect(await theirs.redis.exists(`${mine.prefix}a`, `{${mine.prefix}intake}:job`)).toBe(0);
    expect(await theirs.redis.get(`${theirs.prefix}b`)).toBe('1');
  });

  it('finds every key of a pattern across scan pages, and no other', async () => {
    const tr = await createTestRedis('test-kit-keys');
    for (let i = 0; i < 1200; i++) await tr.redis.set(`${tr.prefix}k${i}`, 'v');
    await tr.redis.set(`${tr.prefix}other`, 'v');

    const found = await keysMatching(tr.redis, `${tr.prefix}k*`);

    expect(found).toHaveLength(1200);
    expect(new Set(found).size).toBe(1200);
    expect(found).not.toContain(`${tr.prefix}other`);
    await tr.cleanup();
  });

  it('deletes every key of a pattern across scan pages', async () => {
    const tr = await createTestRedis('test-kit-scan');
    for (let i = 0; i < 1200; i++) await tr.redis.set(`${tr.prefix}k${i}`, 'v');

    await deleteByPattern(tr.redis, `${tr.prefix}*`);

    const [, left] = await tr.redis.scan('0', 'MATCH', `${tr.prefix}*`, 'COUNT', 5000);
    expect(left).toEqual([]);
    await tr.cleanup();
  });
});
