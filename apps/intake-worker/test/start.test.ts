/*
 * The worker's use cases and its mailer are static imports of its entry
 * point, so a build that lacks one of them refuses to start. Loaded lazily,
 * the same build started, answered its health checks and failed every job
 * (each retried until its attempts were used up).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_INTERNAL_SECRET } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const APP = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let copy: string;

beforeAll(async () => {
  if (!existsSync(path.join(APP, 'dist/main.js'))) throw new Error(`${APP}/dist is missing: run \`pnpm -F @msa/intake-worker build\` first`);
  // A copy of the build that can lose a file without touching dist/, resolving packages as the app does.
  copy = await mkdtemp(path.join(tmpdir(), 'intake-start-'));
  await cp(path.join(APP, 'dist'), path.join(copy, 'dist'), { recursive: true });
  await symlink(path.join(APP, 'node_modules'), path.join(copy, 'node_modules'));
  await writeFile(path.join(copy, 'package.json'), '{ "type": "module" }\n');
});

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

function start(): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(copy, 'dist/main.js')],
      {
        timeout: 10_000,
        killSignal: 'SIGKILL',
        // Enough to start: with the module loaded on the first job, this process would keep running until the timeout.
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET, WORKER_PORT: '0', REDIS_URL: 'redis://127.0.0.1:1' },
      },
      (err, _stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr }),
    );
  });
}

describe('starting the worker', () => {
  it.each(['intake/run-intake.js', 'mail/mailer.js', 'mail-jobs/run-mail-job.js'])('stops at once, naming the module, when %s is missing', async (file) => {
    const module = path.join(copy, 'dist', file);
    await rename(module, `${module}.gone`);
    try {
      const { code, stderr } = await start();

      expect(code).toBe(1);
      expect(stderr).toContain('ERR_MODULE_NOT_FOUND');
      expect(stderr).toContain(module);
    } finally {
      await rename(`${module}.gone`, module);
    }
  });
});
