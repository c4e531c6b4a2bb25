// Every README's environment table and `.env.example` are what
// `pnpm docs:env` writes from the apps' config.ts, so a changed variable or
// `.describe()` text cannot leave a hand copy behind.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS, ROOT, readText } from './deploy-support.js';

const SCRIPT = join(ROOT, 'scripts', 'env-tables.mjs');

function envTables(...args: string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
}

describe('README env tables', () => {
  it('match the env schema of every app', () => {
    const check = envTables('--check');

    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  describe('on a README whose table is out of date', () => {
    const root = mkdtempSync(join(tmpdir(), 'env-tables-'));
    const readme = join(root, 'apps', 'demo', 'README.md');

    beforeAll(() => {
      mkdirSync(join(root, 'apps', 'demo'), { recursive: true });
      // The catalog's built config stands in for the demo app's.
      symlinkSync(join(ROOT, 'apps', 'catalog', 'dist'), join(root, 'apps', 'demo', 'dist'), 'dir');
      const stale = ['<!-- env:start CatalogEnv -->', '| `CATALOG_PORT` | 1 | hand-written |', '<!-- env:end -->'];
      writeFileSync(readme, ['# demo', '', 'Prose before.', '', ...stale, '', 'Prose after.', ''].join('\n'));
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('fails the check, naming the README and the command that rewrites it', () => {
      const check = envTables('--check', '--root', root);

      expect(check.status).toBe(1);
      expect(check.stderr).toContain('apps/demo/README.md');
      expect(check.stderr).toContain('pnpm docs:env');
      expect(readFileSync(readme, 'utf8')).toContain('hand-written');
    });

    it('rewrites only the table between the markers, after which the check passes', () => {
      const write = envTables('--root', root);
      const text = readFileSync(readme, 'utf8');

      expect(write.status).toBe(0);
      expect(text).not.toContain('hand-written');
      expect(text).toContain('| `CATALOG_PORT` | `8081` | HTTP port (0 = any free port) |');
      expect(text).toContain('| `INTERNAL_AUTH_SECRET` | required |');
      expect(text.startsWith('# demo\n\nProse before.\n\n<!-- env:start CatalogEnv -->\n')).toBe(true);
      expect(text.endsWith('<!-- env:end -->\n\nProse after.\n')).toBe(true);
      expect(envTables('--check', '--root', root).status).toBe(0);
    });
  });
});

describe('.env.example', () => {
  describe('edited by hand', () => {
    const root = mkdtempSync(join(tmpdir(), 'env-example-'));
    const envExample = join(root, '.env.example');

    beforeAll(() => {
      // The apps' built configs and the compose file stand in for a checkout.
      for (const app of APPS) {
        mkdirSync(join(root, 'apps', app), { recursive: true });
        symlinkSync(join(ROOT, 'apps', app, 'dist'), join(root, 'apps', app, 'dist'), 'dir');
      }
      copyFileSync(join(ROOT, 'docker-compose.yml'), join(root, 'docker-compose.yml'));
      const edited = readText('.env.example').replace(/^# HTTP port \(0 = any free port\)\n# CATALOG_PORT=/m, '# The catalog port\n# CATALOG_PORT=');
      writeFileSync(envExample, edited);
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('fails the check, naming the file and the command that rewrites it', () => {
      const check = envTables('--check', '--root', root);

      expect(readFileSync(envExample, 'utf8')).toContain('# The catalog port\n');
      expect(check.status).toBe(1);
      expect(check.stderr).toContain('.env.example');
      expect(check.stderr).toContain('pnpm docs:env');
    });

    it('is rewritten from the env schemas to the committed file, after which the check passes', () => {
      const write = envTables('--root', root);

      expect(write.status).toBe(0);
      expect(readFileSync(envExample, 'utf8')).toBe(readText('.env.example'));
      expect(envTables('--check', '--root', root).status).toBe(0);
    });
  });
});
