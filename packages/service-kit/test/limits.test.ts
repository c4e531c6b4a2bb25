import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createBackoffLimiter,
  createDailyQuota,
  createFailureLimiter,
  createWindowLimiter,
  secondsUntilUtcMidnight,
  withReservation,
} from '../src/limits.js';
import { createRedis } from '../src/redis.js';
import { createTestRedis, type TestRedis } from './support.js';

let t: TestRedis;
let n = 0;
/** A fresh limiter key per test, so tests never share a counter. */
const key = (label: string) => `${label}-${++n}`;

beforeAll(async () => {
  t = await createTestRedis('limits');
});

afterAll(async () => {
  await t.cleanup();
});

describe('createWindowLimiter', () => {
  it('allows n requests per window and refuses the n+1th with the time to wait', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 3, windowSeconds: 60 });
    const k = key('caller');

    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.consume(k));

    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.state.remaining)).toEqual([2, 1, 0, 0]);
    const refused = results[3]!.state;
    expect(refused).toMatchObject({ policy: 'default', limit: 3, windowSeconds: 60 });
    expect(refused.resetSeconds).toBeGreaterThan(0);
    expect(refused.resetSeconds).toBeLessThanOrEqual(60);
  });

  it('counts each key on its own', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 1, windowSeconds: 60 });

    const a = await limiter.consume(key('a'));
    const b = await limiter.consume(key('b'));

    expect([a.allowed, b.allowed]).toEqual([true, true]);
  });

  it('never lets concurrent requests past the limit', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 5, windowSeconds: 60 });
    const k = key('burst');

    const results = await Promise.all(Array.from({ length: 20 }, () => limiter.consume(k)));

    expect(results.filter((r) => r.allowed)).toHaveLength(5);
  });

  it('gives concurrent requests the remaining counts they would have seen one by one, and counts every one in Redis', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 5, windowSeconds: 60 });
    const k = key('batch');
    await limiter.consume(k);

    const results = await Promise.all(Array.from({ length: 7 }, () => limiter.consume(k)));

    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, false, false, false]);
    expect(results.map((r) => r.state.remaining)).toEqual([3, 2, 1, 0, 0, 0, 0]);
    expect(await t.redis.get(`${t.prefix}minute:${k}`)).toBe('8');
  });

  it('counts concurrent requests for different keys apart', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 2, windowSeconds: 60 });
    const [a, b] = [key('a'), key('b')];

    const results = await Promise.all([a, b, a, b, a].map((k) => limiter.consume(k)));

    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, false]);
  });

  it('hands a Redis failure to every request waiting on it', async () => {
    const broken = createRedis('redis://127.0.0.1:1', 'api', { connectTimeout: 200, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    broken.on('error', () => undefined);
    const limiter = createWindowLimiter({ redis: broken, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 5, windowSeconds: 60 });

    const results = await Promise.allSettled([limiter.consume('x'), limiter.consume('x')]);

    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    broken.disconnect();
  });

  it('counts in memory with the insurance while its Redis is unreachable, refusing past the budget', async () => {
    const broken = createRedis('redis://127.0.0.1:1', 'api', { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    broken.on('error', () => undefined);
    const limiter = createWindowLimiter({ redis: broken, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 2, windowSeconds: 60, insurance: true });

    const results = await Promise.all(['x', 'x', 'x', 'y'].map((k) => limiter.consume(k)));

    expect(results.map((r) => r.allowed)).toEqual([true, true, false, true]);
    expect(results[2]?.state.resetSeconds).toBeGreaterThan(0);
    broken.disconnect();
  });

  it('keeps its counters under the given prefix', async () => {
    const limiter = createWindowLimiter({ redis: t.redis, keyPrefix: `${t.prefix}minute`, policy: 'default', points: 5, windowSeconds: 60 });
    const k = key('where');

    await limiter.consume(k);

    expect(await t.redis.keys(`${t.prefix}minute*${k}`)).toHaveLength(1);
  });
});

describe('createFailureLimiter with insurance', () => {
  it('counts failures in memory while its Redis is unreachable, and refuses past the budget', async () => {
    const broken = createRedis('redis://127.0.0.1:1', 'api', { lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null });
    broken.on('error', () => undefined);
    const limiter = createFailureLimiter({ redis: broken, keyPrefix: `${t.prefix}fail`, policy: 'failed-auth', points: 2, windowSeconds: 60, insurance: true });

    const before = await limiter.check('ip');
    const fails = [await limiter.fail('ip'), await limiter.fail('ip')];
    const after = await limiter.check('ip');

    expect(before.allowed).toBe(true);
    expect(fails.map((r) => r.allowed)).toEqual([true, true]);
    expect(after.allowed).toBe(false);
    broken.disconnect();
  });
});

describe('createDailyQuota', () => {
  const quota = () => createDailyQuota({ redis: t.redis, keyPrefix: `${t.prefix}day`, policy: 'live-requests', points: 2 });
  const noon = new Date('2031-05-20T12:00:00Z');

  it('reserves up to the limit and refuses the next, saying when the UTC day ends', async () => {
    const q = quota();
    const k = key('principal');

    const first = await q.reserve(k, noon);
    const second = await q.reserve(k, noon);
    const third = await q.reserve(k, noon);

    expect([first.allowed, second.allowed, third.allowed]).toEqual([true, true, false]);
    expect([first.state.remaining, second.state.remaining, third.state.remaining]).toEqual([1, 0, 0]);
    expect(third.state).toMatchObject({ policy: 'live-requests', limit: 2, resetSeconds: secondsUntilUtcMidnight(noon) });
  });

  it('gives a unit back on refund, once', async () => {
    const q = quota();
    const k = key('principal');
    await q.reserve(k, noon);
    const second = await q.reserve(k, noon);

    await second.refund();
    await second.refund();

    expect((await q.reserve(k, noon)).allowed).toBe(true);
    expect((await q.reserve(k, noon)).allowed).toBe(false);
  });

  it('does not count refused reservations', async () => {
    const q = quota();
    const k = key('principal');
    const first = await q.reserve(k, noon);
    await q.reserve(k, noon);
    for (let i = 0; i < 5; i++) expect((await q.reserve(k, noon)).allowed).toBe(false);

    await first.refund();

    expect((await q.reserve(k, noon)).allowed).toBe(true);
  });

  it('keeps one counter per UTC calendar day', async () => {
    const q = quota();
    const k = key('principal');
    const lateEvening = new Date('2031-05-20T23:59:30Z');
    const justAfterMidnight = new Date('2031-05-21T00:00:10Z');
    await q.reserve(k, lateEvening);
    await q.reserve(k, lateEvening);

    const sameDay = await q.reserve(k, lateEvening);
    const nextDay = await q.reserve(k, justAfterMidnight);

    expect(sameDay.allowed).toBe(false);
    expect(sameDay.state.resetSeconds).toBe(30);
    expect(nextDay.allowed).toBe(true);
    expect(nextDay.state.remaining).toBe(1);
  });

  it('lets the day counter expire shortly after midnight', async () => {
    const q = quota();
    const k = key('principal');
    const now = new Date();

    await q.reserve(k, now);

    const [counter] = await t.redis.keys(`${t.prefix}day*${k}*`);
    const ttl = await t.redis.ttl(counter!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(secondsUntilUtcMidnight(now) + 3_600);
  });

  it('counts a unit reserved again (a retried request) once', async () => {
    const q = quota();
    const k = key('principal');

    const first = await q.reserve(k, noon, 'req_1');
    const again = await q.reserve(k, noon, 'req_1');
    const other = await q.reserve(k, noon, 'req_2');

    expect([first.allowed, again.allowed, other.allowed]).toEqual([true, true, true]);
    expect(again.state.remaining).toBe(1);
    expect(await q.used(k, noon)).toBe(2);
  });

  it('says whether a call reserved the unit or found it reserved', async () => {
    const q = quota();
    const k = key('principal');

    const first = await q.reserve(k, noon, 'req_1');
    const again = await q.reserve(k, noon, 'req_1');

    expect([first.first, again.first]).toEqual([true, false]);
  });

  it('refunds a named unit later by key, day and unit, and ignores a unit never reserved', async () => {
    const q = quota();
    const k = key('principal');
    const reservation = await q.reserve(k, noon, 'req_crashed');
    await q.reserve(k, noon, 'req_stored');

    await q.refund(k, reservation.day, 'req_never_reserved');
    expect(await q.used(k, noon)).toBe(2);
    await q.refund(k, reservation.day, 'req_crashed');

    expect(reservation.day).toBe('2031-05-20');
    expect(await q.used(k, noon)).toBe(1);
  });

  it('never reserves more than the limit for concurrent calls', async () => {
    const q = createDailyQuota({ redis: t.redis, keyPrefix: `${t.prefix}day`, policy: 'sandbox-requests', points: 5 });
    const k = key('burst');

    const results = await Promise.all(Array.from({ length: 20 }, () => q.reserve(k, noon)));

    expect(results.filter((r) => r.allowed)).toHaveLength(5);
    // The refused ones gave their unit back: one refund frees exactly one place.
    await results.find((r) => r.allowed)!.refund();
    expect((await q.reserve(k, noon)).allowed).toBe(true);
    expect((await q.reserve(k, noon)).allowed).toBe(false);
  });
});

describe('createDailyQuota with rememberRefusals', () => {
  const quota = (points = 2) =>
    createDailyQuota({ redis: t.redis, keyPrefix: `${t.prefix}decided`, policy: 'decided', points, rememberRefusals: true, retentionSeconds: 2 * 86_400 });
  const noon = new Date('2031-05-20T12:00:00Z');

  it('answers a refused unit asked again with the same refusal, without counting it again', async () => {
    const q = quota();
    const k = key('mailbox');

    const answers = [];
    for (const unit of ['a', 'b', 'c', 'c', 'a']) answers.push(await q.reserve(k, noon, unit));

    expect(answers.map((r) => [r.allowed, r.first, r.asked])).toEqual([
      [true, true, 1],
      [true, true, 2],
      [false, true, 3],
      [false, false, 3],
      [true, false, 3],
    ]);
    expect(answers[3]!.state.remaining).toBe(0);
    expect(await q.used(k, noon)).toBe(2);
  });

  it('counts each unit once in a tally that several keys share', async () => {
    const q = quota(1);
    const tally = `${t.prefix}tally:{${key('group')}}`;
    const [a, b] = [key('a'), key('b')];

    const first = await q.reserve(a, noon, 'u1', { tally });
    const again = await q.reserve(a, noon, 'u1', { tally });
    const refused = await q.reserve(a, noon, 'u2', { tally });
    const other = await q.reserve(b, noon, 'u3', { tally });

    expect([first.tally, again.tally, refused.tally, other.tally]).toEqual([1, 1, 2, 3]);
    expect(await t.redis.get(`${tally}:2031-05-20`)).toBe('3');
    expect(refused).toMatchObject({ allowed: false, asked: 2 });
    expect(other).toMatchObject({ allowed: true, asked: 1 });
  });

  it('finds the decision of the day before when asked to look back, with that day\'s counts', async () => {
    const q = quota(1);
    const k = key('late');
    const tally = `${t.prefix}tally:{${k}}`;
    await q.reserve(k, new Date('2031-05-20T23:59:00Z'), 'u1', { tally });
    await q.reserve(k, new Date('2031-05-20T23:59:30Z'), 'u2', { tally });
    const afterMidnight = new Date('2031-05-21T00:01:00Z');

    const lookedBack = await q.reserve(k, afterMidnight, 'u2', { tally, lookBack: true });
    const today = await q.reserve(k, afterMidnight, 'u3', { tally });

    expect(lookedBack).toMatchObject({ allowed: false, first: false, day: '2031-05-20', asked: 2, tally: 2 });
    expect(today).toMatchObject({ allowed: true, first: true, day: '2031-05-21', asked: 1, tally: 1 });
  });

  it('does not look at the day before unless asked to', async () => {
    const q = quota(1);
    const k = key('fresh');
    await q.reserve(k, new Date('2031-05-20T23:59:00Z'), 'u1');

    const nextDay = await q.reserve(k, new Date('2031-05-21T00:01:00Z'), 'u1');

    expect(nextDay).toMatchObject({ allowed: true, first: true, day: '2031-05-21' });
  });

  it('keeps its keys for the retention it was given', async () => {
    const q = quota();
    const k = key('kept');
    const tally = `${t.prefix}tally:{${k}}`;

    await q.reserve(k, new Date(), 'u1', { tally });

    const keys = await t.redis.keys(`${t.prefix}*${k}*`);
    expect(keys).toHaveLength(2);
    for (const name of keys) expect(await t.redis.ttl(name)).toBeGreaterThan(2 * 86_400 - 60);
  });

  it('gives no refunds: its decisions stand', async () => {
    const q = quota();
    const k = key('kept');
    const reservation = await q.reserve(k, noon, 'u1');

    await expect(reservation.refund()).rejects.toThrow('gives no refunds');
    expect(await q.used(k, noon)).toBe(1);
  });

  it('never grants more than its points to concurrent calls', async () => {
    const q = quota(3);
    const k = key('burst');

    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => q.reserve(k, noon, `u${i}`)));

    expect(results.filter((r) => r.allowed)).toHaveLength(3);
    expect(results.map((r) => r.asked).sort((x, y) => x! - y!)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('refuses a tally or a look back on a quota that does not remember refusals', async () => {
    const q = createDailyQuota({ redis: t.redis, keyPrefix: `${t.prefix}day`, policy: 'plain', points: 1 });

    await expect(q.reserve(key('plain'), noon, 'u1', { lookBack: true })).rejects.toThrow('need rememberRefusals');
  });
});

describe('withReservation', () => {
  const quota = () => createDailyQuota({ redis: t.redis, keyPrefix: `${t.prefix}held`, policy: 'held', points: 2 });
  const noon = new Date('2031-05-20T12:00:00Z');

  it('keeps the unit when the work succeeds and returns what the work returned', async () => {
    const q = quota();
    const k = key('owner');
    const reservation = await q.reserve(k, noon, 'req_kept');

    const result = await withReservation(reservation, async () => 'stored');

    expect(result).toBe('stored');
    expect(await q.used(k, noon)).toBe(1);
  });

  it('gives exactly the reserved unit back when the work throws, and rethrows the failure', async () => {
    const q = quota();
    const k = key('owner');
    await q.reserve(k, noon, 'req_other');
    const reservation = await q.reserve(k, noon, 'req_failed');

    const run = withReservation(reservation, async () => {
      throw new Error('store down');
    });

    await expect(run).rejects.toThrow('store down');
    expect(await q.used(k, noon)).toBe(1);
    expect((await q.reserve(k, noon, 'req_other')).state.remaining).toBe(1);
  });

  it('reports a refund that fails and still rethrows the failure of the work', async () => {
    const refundErrors: unknown[] = [];
    const reservation = { refund: () => Promise.reject(new Error('quota unreachable')) };

    const run = withReservation(
      reservation,
      async () => {
        throw new Error('store down');
      },
      (err) => refundErrors.push(err),
    );

    await expect(run).rejects.toThrow('store down');
    expect(refundErrors).toEqual([new Error('quota unreachable')]);
  });
});

describe('createFailureLimiter', () => {
  const limiter = () => createFailureLimiter({ redis: t.redis, keyPrefix: `${t.prefix}fail`, policy: 'failed-auth', points: 2, windowSeconds: 60 });

  it('reads the budget without spending it', async () => {
    const l = limiter();
    const k = key('address');

    const checks = [await l.check(k), await l.check(k), await l.check(k)];

    expect(checks.every((c) => c.allowed && c.state.remaining === 2)).toBe(true);
  });

  it('refuses at the check once the failures have used the budget, until the window ends', async () => {
    const l = limiter();
    const k = key('address');

    const fails = [await l.fail(k), await l.fail(k)];
    const check = await l.check(k);

    expect(fails.map((f) => [f.allowed, f.state.remaining])).toEqual([[true, 1], [true, 0]]);
    expect(check.allowed).toBe(false);
    expect(check.state.resetSeconds).toBeGreaterThan(0);
    expect(check.state.resetSeconds).toBeLessThanOrEqual(60);
  });
});

describe('createBackoffLimiter', () => {
  const limiter = () =>
    createBackoffLimiter({ redis: t.redis, keyPrefix: `${t.prefix}backoff`, policy: 'client-auth-failures', freeFailures: 2, baseBlockSeconds: 10, maxBlockSeconds: 25, memorySeconds: 3600 });

  it('blocks after the free failures, doubling the block up to the maximum', async () => {
    const l = limiter();
    const k = `{${key('client')}}`;

    const fails = [];
    for (let i = 0; i < 5; i++) fails.push(await l.fail(k));
    const check = await l.check(k);

    expect(fails.map((f) => f.allowed)).toEqual([true, true, false, false, false]);
    expect(fails.slice(2).map((f) => f.state.resetSeconds)).toEqual([10, 20, 25]);
    expect(check.allowed).toBe(false);
    expect(check.state.resetSeconds).toBeGreaterThan(20);
  });

  it('forgets failures and the block on reset', async () => {
    const l = limiter();
    const k = `{${key('client')}}`;
    for (let i = 0; i < 3; i++) await l.fail(k);

    await l.reset(k);

    expect((await l.check(k)).allowed).toBe(true);
    expect((await l.fail(k)).state.remaining).toBe(1);
  });
});
