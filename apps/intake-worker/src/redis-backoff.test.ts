import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { backoffDelay, isRedisFailure } from './redis-backoff.js';

describe('backoffDelay', () => {
  it('doubles from the first delay up to the cap', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, 1_000, 30_000));

    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
  });
});

describe('isRedisFailure', () => {
  it('counts a reply error of Redis and a lost connection, not an error of BullMQ itself', () => {
    const moved = new ReplyError('MOVED 3714 127.0.0.1:7001');
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });
    const lostLock = new Error('Missing lock for job req_1. moveToFinished');

    expect([isRedisFailure(moved), isRedisFailure(refused), isRedisFailure(lostLock)]).toEqual([true, true, false]);
  });
});
