import { ServiceCallError, type CallContext, type IdentityClient, type IntrospectionResponse, type Principal } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { createKeyResolver } from './key-resolver.js';

const KEY = `msa_live_${'k'.repeat(32)}`;
const ctx: CallContext = { principal: null, sandbox: false, ip: '203.0.113.9', request_id: 'req-1' };
const known: Omit<Principal, 'via'> = { id: 'msa_client_0123456789abcdef', name: 'agent', scopes: ['catalog:read'], mode: 'live', tier: 'free' };

/** Identity's introspection, answering from `answers` in turn (an Error is thrown). */
function identityAnswering(...answers: Array<IntrospectionResponse | Error>) {
  const asked: string[] = [];
  const identity = {
    introspect: async (_ctx: CallContext, apiKey: string) => {
      asked.push(apiKey);
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as IdentityClient;
  return { identity, asked };
}

const active = { active: true, principal: known } as IntrospectionResponse;
const inactive = { active: false } as IntrospectionResponse;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('createKeyResolver', () => {
  it('asks identity once for concurrent lookups of one key, and answers from the cache after', async () => {
    const { identity, asked } = identityAnswering(active);
    const resolve = createKeyResolver({ identity, ttlMs: 60_000 });

    const answers = await Promise.all([resolve(KEY, ctx), resolve(KEY, ctx), resolve(KEY, ctx)]);

    expect(answers.map((p) => p?.id)).toEqual([known.id, known.id, known.id]);
    expect(answers[0]?.via).toBe('api_key');
    expect(resolve.fresh?.(KEY)).toEqual(answers[0]);
    expect(asked).toEqual([KEY]);
  });

  it('believes a forgotten key unknown at once, also for cached-only answers, without asking identity', async () => {
    const { identity, asked } = identityAnswering(active);
    const resolve = createKeyResolver({ identity, ttlMs: 60_000 });
    expect((await resolve(KEY, ctx))?.id).toBe(known.id);

    resolve.forget?.(KEY);

    expect(await resolve(KEY, ctx)).toBeNull();
    expect(await resolve(KEY, ctx, { cachedOnly: true })).toBeNull();
    expect(asked).toEqual([KEY]);
  });

  it('remembers an unknown key as unknown, without calling it fresh', async () => {
    const { identity, asked } = identityAnswering(inactive);
    const resolve = createKeyResolver({ identity, ttlMs: 60_000 });

    expect(await resolve(KEY, ctx)).toBeNull();
    expect(await resolve(KEY, ctx)).toBeNull();
    expect(resolve.fresh?.(KEY)).toBeNull();
    expect(asked).toHaveLength(1);
  });

  it('asks again once the TTL has passed', async () => {
    const { identity, asked } = identityAnswering(active);
    const resolve = createKeyResolver({ identity, ttlMs: 1 });
    await resolve(KEY, ctx);
    await pause(5);

    expect(resolve.fresh?.(KEY)).toBeNull();
    await resolve(KEY, ctx);
    expect(asked).toHaveLength(2);
  });

  it('answers cached-only from a key resolved before its TTL ran out, never asking identity', async () => {
    const { identity, asked } = identityAnswering(active);
    const resolve = createKeyResolver({ identity, ttlMs: 1 });
    await resolve(KEY, ctx);
    await pause(5);

    expect((await resolve(KEY, ctx, { cachedOnly: true }))?.id).toBe(known.id);
    expect(await resolve(`msa_live_${'u'.repeat(32)}`, ctx, { cachedOnly: true })).toBeNull();
    expect(asked).toHaveLength(1);
  });

  it('answers an expired key from the cache when identity is unreachable, and keeps it for cached-only answers', async () => {
    const { identity } = identityAnswering(active, new TypeError('fetch failed'));
    const resolve = createKeyResolver({ identity, ttlMs: 1 });
    await resolve(KEY, ctx);
    await pause(5);

    expect((await resolve(KEY, ctx))?.id).toBe(known.id);
    expect((await resolve(KEY, ctx, { cachedOnly: true }))?.id).toBe(known.id);
  });

  it('answers an expired key from the cache when identity answers 5xx, without asking again right after', async () => {
    const { identity, asked } = identityAnswering(active, new ServiceCallError(503, null, 'identity answered 503'));
    const resolve = createKeyResolver({ identity, ttlMs: 1 });
    await resolve(KEY, ctx);
    await pause(5);

    expect((await resolve(KEY, ctx))?.id).toBe(known.id);
    expect((await resolve(KEY, ctx))?.id).toBe(known.id);
    expect(asked).toHaveLength(2);
  });

  it('answers stale keys without asking identity while it is away, and tries it again once per interval in the background', async () => {
    let down = false;
    let calls = 0;
    const identity = {
      introspect: async () => {
        calls++;
        if (down) throw new TypeError('fetch failed');
        return active;
      },
    } as unknown as IdentityClient;
    const resolve = createKeyResolver({ identity, ttlMs: 1, retryAfterFailureMs: 50 });
    await resolve(KEY, ctx);
    down = true;
    await pause(5);

    const during = [await resolve(KEY, ctx), await resolve(KEY, ctx), await resolve(KEY, ctx)];
    const askedWhileAway = calls;
    await pause(60);
    await resolve(KEY, ctx);
    const askedAfterInterval = calls;

    expect(during.map((p) => p?.id)).toEqual([known.id, known.id, known.id]);
    expect(askedWhileAway).toBe(2);
    expect(askedAfterInterval).toBe(3);
  });

  it('refuses an expired key once the stale bound passed while identity is unreachable', async () => {
    const { identity } = identityAnswering(active, new TypeError('fetch failed'));
    const resolve = createKeyResolver({ identity, ttlMs: 1, staleMs: 20 });
    await resolve(KEY, ctx);
    await pause(40);

    await expect(resolve(KEY, ctx)).rejects.toThrow('fetch failed');
    expect(await resolve(KEY, ctx, { cachedOnly: true })).toBeNull();
  });

  it('never answers a stale key after identity called it unknown', async () => {
    const { identity } = identityAnswering(active, inactive, new TypeError('fetch failed'));
    const resolve = createKeyResolver({ identity, ttlMs: 1, negativeTtlMs: 1 });
    await resolve(KEY, ctx);
    await pause(5);

    expect(await resolve(KEY, ctx)).toBeNull();
    await pause(5);
    await expect(resolve(KEY, ctx)).rejects.toThrow('fetch failed');
    expect(await resolve(KEY, ctx, { cachedOnly: true })).toBeNull();
  });

  it('passes on an answer of identity that is not an outage (4xx) instead of the stale key', async () => {
    const { identity } = identityAnswering(active, new ServiceCallError(400, null, 'identity answered 400'));
    const resolve = createKeyResolver({ identity, ttlMs: 1 });
    await resolve(KEY, ctx);
    await pause(5);

    await expect(resolve(KEY, ctx)).rejects.toThrow('identity answered 400');
  });

  it('answers the stale key when identity is too slow, and takes its late answer for the next lookup', async () => {
    const slowly = { ...inactive };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const identity = {
      introspect: async () => {
        calls++;
        if (calls === 1) return active;
        await gate;
        return slowly;
      },
    } as unknown as IdentityClient;
    const resolve = createKeyResolver({ identity, ttlMs: 1, staleWaitMs: 20 });
    await resolve(KEY, ctx);
    await pause(5);

    expect((await resolve(KEY, ctx))?.id).toBe(known.id);
    release();
    await pause(5);
    expect(await resolve(KEY, ctx)).toBeNull();
  });
});
