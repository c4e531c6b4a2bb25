import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { isRedisUnavailable } from './redis.js';

describe('isRedisUnavailable', () => {
  it('recognises replies Redis gives while it loads, fails over or reshards', () => {
    expect(isRedisUnavailable(new ReplyError('LOADING Redis is loading the dataset in memory'))).toBe(true);
    expect(isRedisUnavailable(new ReplyError('CLUSTERDOWN The cluster is down'))).toBe(true);
    expect(isRedisUnavailable(new ReplyError("READONLY You can't write against a read only replica."))).toBe(true);
  });

  it('leaves command errors that a retry would repeat alone', () => {
    expect(isRedisUnavailable(new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
    expect(isRedisUnavailable(new ReplyError('ERR syntax error'))).toBe(false);
  });

  it('recognises socket errors by their code', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' });

    expect(isRedisUnavailable(refused)).toBe(true);
    expect(isRedisUnavailable(new Error('wrapped', { cause: refused }))).toBe(true);
  });

  it('recognises a transaction a failover aborted by the errors of its commands', () => {
    const moved = Object.assign(new ReplyError('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [new ReplyError('MOVED 1234 127.0.0.1:7002')],
    });
    const typo = Object.assign(new ReplyError('EXECABORT Transaction discarded because of previous errors.'), {
      previousErrors: [new ReplyError('ERR wrong number of arguments')],
    });

    expect(isRedisUnavailable(moved)).toBe(true);
    expect(isRedisUnavailable(typo)).toBe(false);
  });

  it('recognises the cluster error that carries the last node error', () => {
    const err = Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError' });

    expect(isRedisUnavailable(err)).toBe(true);
  });

  it('recognises a Cluster client giving up on a slot whose master is failing over', () => {
    const err = new Error('Too many Cluster redirections. Last error: Error: Connection is closed.');

    expect(isRedisUnavailable(err)).toBe(true);
  });

  it('is false for everything else, a fetch abort included', () => {
    expect(isRedisUnavailable(new Error('boom'))).toBe(false);
    expect(isRedisUnavailable(new DOMException('This operation was aborted', 'AbortError'))).toBe(false);
    expect(isRedisUnavailable('Connection is closed.')).toBe(false);
    expect(isRedisUnavailable(undefined)).toBe(false);
  });
});
