// What one accepted shop request may cost Redis: warnings that grow with what
// the caller sent rather than with the catalog, a bound on the stored record,
// and an expiry on every key the request leaves behind.
import type { Principal } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LIVE_RETENTION_SECONDS, SANDBOX_TTL_SECONDS } from '../src/store/shop-request-store.js';
import { buildShopRequest, keysMatching, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

const DAY = 86_400;
const SHIRT_COLORS = 'Schwarz, Weiß, Navy, Heather Grey, Flaschengrün, Bordeaux, Royalblau, Rot';

/** The attack as it was run: 20 lines of one product, 20 short colors each that the product does not list. */
const unlistedColorsBody = () =>
  buildShopRequest({
    products: Array.from({ length: 20 }, (_, i) => ({
      product: 'bio-t-shirt-unisex',
      colors: Array.from({ length: 20 }, (_, j) => `c${i}-${j}`),
    })),
  });

/** Comments at their bounds on every line: about 22 kB of body, every field within section 8. */
const longCommentsBody = () =>
  buildShopRequest({
    notes: 'n'.repeat(2000),
    products: Array.from({ length: 20 }, () => ({
      product: 'bio-t-shirt-unisex',
      comment: 'c'.repeat(500),
      designs: [{ width_cm: 20, comment: 'd'.repeat(500) }],
    })),
  });

async function storedBytes(h: Harness, id: string): Promise<number> {
  const fields = await h.redis.hgetall(`${h.prefix}shop-request:${id}`);
  return Object.entries(fields).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('warnings in a stored request', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('storage-warnings');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('gives a product\'s color list once however many unlisted colors name it, and names each color', async () => {
    const principal = sandboxWriter();
    const body = unlistedColorsBody();

    const res = await h.post(body, { principal, sandbox: true });

    expect(res.status).toBe(201);
    const warnings: string[] = res.body.warnings;
    expect(warnings).toHaveLength(20);
    expect(occurrences(warnings.join('\n'), SHIRT_COLORS)).toBe(1);
    for (const color of body.products!.flatMap((p) => p.colors ?? [])) expect(warnings.join('\n')).toContain(`'${color}'`);
    expect(warnings[1]).toMatch(/^products\.1\.colors: 'c1-0', .* are not listed for 'Bio T-Shirt Unisex' \(listed: as in products\.0\.colors\)/);
  });

  it('stores each unlisted color in a few bytes more than it was sent in, not in a copy of the catalog\'s list', async () => {
    const principal = sandboxWriter();
    const withColors = unlistedColorsBody();
    const without = { ...withColors, products: withColors.products!.map(({ product }) => ({ product })) };

    const big = await h.post(withColors, { principal, sandbox: true });
    const small = await h.post(without, { principal, sandbox: true });

    const sentMore = Buffer.byteLength(JSON.stringify(withColors)) - Buffer.byteLength(JSON.stringify(without));
    const storedMore = (await storedBytes(h, big.body.id)) - (await storedBytes(h, small.body.id));
    // Each color is kept three times (body, result, its warning), plus one warning sentence per line.
    expect(storedMore).toBeLessThan(3 * sentMore + 20 * 200);
  });

  it('answers GET with exactly what the POST answered', async () => {
    const principal = sandboxWriter();

    const created = await h.post(unlistedColorsBody(), { principal, sandbox: true });
    const read = await h.get(created.body.id, { principal, sandbox: true });

    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });
});

describe('the bound on a stored request', () => {
  const bound = 16 * 1024;
  const retention = 3 * DAY;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('storage-bound', { storeOptions: { maxStoredBytes: bound, liveRetentionSeconds: retention } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses a request whose stored form would exceed it with 422 on the body, and stores, counts and queues nothing', async () => {
    const principal = liveWriter();

    const res = await h.post(longCommentsBody(), { principal, sandbox: false, idempotencyKey: 'too-large-1' });

    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'validation_failed', status: 422 });
    expect(res.body.error.fields).toEqual([
      { field: '(body)', message: expect.stringMatching(new RegExp(`^the request would be stored as \\d+ bytes, more than the ${bound} `)) },
    ]);
    expect(await h.recordCount()).toBe(0);
    expect(await h.store.pendingIds(new Date(Date.now() + 60_000), 100)).toEqual([]);
    const quotaKeys = await keysMatching(h.redis, `${h.prefix}quota:*${principal.id}*`);
    for (const key of quotaKeys) expect(await h.redis.hlen(key)).toBe(0);
    const jobs = await h.intake.queue.getJobCounts();
    expect(Object.values(jobs).reduce((a, b) => a + b, 0)).toBe(0);
  });

  it('accepts a request under it, and keeps a live one for the configured retention', async () => {
    const principal = liveWriter();

    const res = await h.post(buildShopRequest(), { principal, sandbox: false });

    expect(res.status).toBe(201);
    const ttl = await h.redis.ttl(`${h.prefix}shop-request:${res.body.id}`);
    expect(ttl).toBeGreaterThan(retention - 60);
    expect(ttl).toBeLessThanOrEqual(retention);
  });
});

describe('expiry of what a stored request leaves in Redis', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('storage-ttl');
  });
  afterAll(async () => {
    await h?.close();
  });

  /** The longest each kind of key may live, by what its name starts with after the prefix. */
  const bounds = (sandboxIds: string[], liveIds: string[]): [RegExp, number, number][] => [
    ...sandboxIds.map((id): [RegExp, number, number] => [new RegExp(`^shop-request:${id}$`), SANDBOX_TTL_SECONDS - 60, SANDBOX_TTL_SECONDS]),
    ...liveIds.map((id): [RegExp, number, number] => [new RegExp(`^shop-request:${id}$`), DEFAULT_LIVE_RETENTION_SECONDS - 60, DEFAULT_LIVE_RETENTION_SECONDS]),
    [/^shop-requests:idem:/, 1, DAY],
    [/^quota:shop-requests-(live|sandbox):/, 1, 2 * DAY],
    [/^quota:shop-requests-(live-domain|sandbox-address):/, 1, 2 * DAY],
    // The person index lives as long as the longest request it names.
    [/^privacy-index:\{/, SANDBOX_TTL_SECONDS - 60, DEFAULT_LIVE_RETENTION_SECONDS],
  ];

  it('sets a bounded TTL on every key of a sandbox, an anonymous and a live request, and leaves none in the pending set', async () => {
    const calls: { principal: Principal | null; sandbox: boolean; ip?: string; idempotencyKey: string }[] = [
      { principal: sandboxWriter(), sandbox: true, idempotencyKey: 'ttl-sandbox' },
      { principal: null, sandbox: true, ip: '203.0.113.9', idempotencyKey: 'ttl-anonymous' },
      { principal: liveWriter(), sandbox: false, idempotencyKey: 'ttl-live' },
    ];
    const ids: string[] = [];
    for (const call of calls) {
      const res = await h.post(unlistedColorsBody(), call);
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const [sandboxId, anonymousId, liveId] = ids as [string, string, string];
    expect((await h.store.get(liveId))?.intake).toBe('queued');
    // The idempotency records are written once the answer is sent.
    await vi.waitFor(async () => expect(await keysMatching(h.redis, `${h.prefix}shop-requests:idem:*`)).toHaveLength(3));

    const keys = await keysMatching(h.redis, `${h.prefix}*`);
    const rules = bounds([sandboxId, anonymousId], [liveId]);
    const seen = new Map<string, number>();
    for (const key of keys) {
      const name = key.slice(h.prefix.length);
      const rule = rules.find(([pattern]) => pattern.test(name));
      expect(rule, `a key no rule expects: ${name}`).toBeDefined();
      const [pattern, min, max] = rule!;
      const ttl = await h.redis.ttl(key);
      expect(ttl, `TTL of ${name}`).toBeGreaterThanOrEqual(min);
      expect(ttl, `TTL of ${name}`).toBeLessThanOrEqual(max);
      seen.set(pattern.source, (seen.get(pattern.source) ?? 0) + 1);
    }
    // Three records, three idempotency records, three quota hashes of owners, and
    // three of the two addresses and the domain, and four person index sets
    // (the one contact mailbox, three owners): nothing above was vacuous.
    expect([...seen.values()].sort()).toEqual([1, 1, 1, 3, 3, 3, 4]);
    expect(await h.redis.zrange(`${h.prefix}shop-requests:pending`, '0', '-1')).toEqual([]);
  });
});
