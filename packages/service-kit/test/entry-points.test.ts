// The package's entry points as a service loads them (the built files): a
// service that never talks to Redis imports the index and must not pay for
// ioredis and rate-limiter-flexible, about 80 files and 10 MB of RSS.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REDIS_LIBRARIES = /node_modules\/(ioredis|rate-limiter-flexible)\//;

/** Paths of the CommonJS modules a fresh node process holds after importing `entries` of dist/. */
function loadedAfterImporting(...entries: string[]): Promise<string[]> {
  const imports = entries.map((e) => `await import(${JSON.stringify(new URL(`../dist/${e}`, import.meta.url).href)});`).join('\n');
  const script = `
    import { createRequire } from 'node:module';
    ${imports}
    process.stdout.write(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
  `;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('..', import.meta.url)) }, (err, stdout) =>
      err ? reject(err) : resolve(JSON.parse(stdout) as string[]),
    );
  });
}

describe('entry points', () => {
  it('the index loads neither ioredis nor rate-limiter-flexible', async () => {
    const loaded = await loadedAfterImporting('index.js');
    expect(loaded.length).toBeGreaterThan(0);
    expect(loaded.filter((p) => REDIS_LIBRARIES.test(p))).toEqual([]);
  });

  it('the redis and limits subpaths load them', async () => {
    const loaded = await loadedAfterImporting('redis.js', 'limits.js');
    expect(loaded.some((p) => /node_modules\/ioredis\//.test(p))).toBe(true);
    expect(loaded.some((p) => /node_modules\/rate-limiter-flexible\//.test(p))).toBe(true);
  });
});
