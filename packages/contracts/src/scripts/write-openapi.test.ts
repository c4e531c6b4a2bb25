import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('pnpm openapi', () => {
  let dir: string | undefined;

  beforeAll(() => {
    // The script runs the compiled package; turbo builds it before tests.
    if (!existsSync(join(packageDir, 'dist', 'scripts', 'write-openapi.js'))) {
      throw new Error('dist is missing: run `pnpm -F @msa/contracts build` first');
    }
  });

  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes a valid OpenAPI 3.1 document for the given base URL to the given path', async () => {
    dir = mkdtempSync(join(tmpdir(), 'msa-openapi-'));
    const out = join(dir, 'openapi.json');

    const { stdout } = await run('pnpm', ['run', '--silent', 'openapi', 'https://api.example.de', out], { cwd: packageDir });

    expect(stdout).toContain(out);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { servers: { url: string }[] };
    expect(written.servers[0]?.url).toBe('https://api.example.de');
    const result = await new Validator().validate(written as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    // Spawning pnpm takes seconds on a loaded machine; this is not a speed check.
  }, 30_000);
});
