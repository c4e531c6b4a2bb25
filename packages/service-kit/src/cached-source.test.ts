import { describe, expect, it } from 'vitest';
import { createCachedSource } from './cached-source.js';
import type { Source } from './data-source.js';
import { createLogger } from './logger.js';

const silent = createLogger({ service: 'test', level: 'silent' });

/** A source that answers from a script: a value, or an Error to throw. */
function buildScriptedSource(script: (string[] | Error)[]) {
  let calls = 0;
  const source: Source<string[]> = {
    name: 'scripted',
    async load() {
      const step = script[Math.min(calls, script.length - 1)]!;
      calls++;
      if (step instanceof Error) throw step;
      return step;
    },
  };
  return { source, calls: () => calls };
}

function buildCache(source: Source<string[]>, clock: { t: number }) {
  return createCachedSource({
    source,
    prepare: (data: string[]) => data.join(','),
    refreshMs: 1_000,
    retryMs: 100,
    logger: silent,
    unavailable: () => new Error('unavailable'),
    now: () => clock.t,
  });
}

describe('createCachedSource', () => {
  it('loads once and serves the copy until it is older than the refresh interval', async () => {
    const clock = { t: 0 };
    const { source, calls } = buildScriptedSource([['a'], ['b']]);
    const cache = buildCache(source, clock);

    expect((await cache.get()).value).toBe('a');
    clock.t = 999;
    expect((await cache.get()).value).toBe('a');
    clock.t = 1_000;
    expect((await cache.get()).value).toBe('b');
    expect(calls()).toBe(2);
  });

  it('keeps version and generatedAt when a refresh brings the same content', async () => {
    const clock = { t: 0 };
    const { source } = buildScriptedSource([['a'], ['a']]);
    const cache = buildCache(source, clock);
    const first = await cache.get();

    clock.t = 5_000;
    const second = await cache.get();

    expect(second.version).toBe(first.version);
    expect(second.generatedAt).toEqual(new Date(0));
  });

  it('serves the last good copy when the source fails, and waits retryMs before asking again', async () => {
    const clock = { t: 0 };
    const { source, calls } = buildScriptedSource([['a'], new Error('down'), ['c']]);
    const cache = buildCache(source, clock);
    await cache.get();

    clock.t = 1_000;
    expect((await cache.get()).value).toBe('a');
    clock.t = 1_050;
    expect((await cache.get()).value).toBe('a');
    expect(calls()).toBe(2);
    clock.t = 1_100;
    expect((await cache.get()).value).toBe('c');
  });

  it('fails with unavailable() while no copy was ever loaded', async () => {
    const clock = { t: 0 };
    const { source, calls } = buildScriptedSource([new Error('down'), ['a']]);
    const cache = buildCache(source, clock);

    await expect(cache.get()).rejects.toThrow('unavailable');
    clock.t = 50;
    await expect(cache.get()).rejects.toThrow('unavailable');
    expect(calls()).toBe(1);
    clock.t = 100;
    expect((await cache.get()).value).toBe('a');
  });

  it('asks the source once for callers that arrive together', async () => {
    const { source, calls } = buildScriptedSource([['a']]);
    const cache = buildCache(source, { t: 0 });

    const results = await Promise.all([cache.get(), cache.get(), cache.get()]);

    expect(results.map((r) => r.value)).toEqual(['a', 'a', 'a']);
    expect(calls()).toBe(1);
  });
});

