// A package README's module table is what `pnpm docs:modules` writes from the
// one-line `// @module` header each module opens with, so a module added,
// renamed or repurposed cannot leave the table behind, nor go undescribed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from './deploy-support.js';

const SCRIPT = join(ROOT, 'scripts', 'module-tables.mjs');

function moduleTables(...args: string[]) {
  return spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
}

/** A package with a README table and the given modules, in a tree of its own. */
function createPackage(root: string, modules: Record<string, string>, table: string[]) {
  const dir = join(root, 'packages', 'demo');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@msa/demo', exports: { '.': './dist/index.js', './extra': { default: './dist/extra.js' } } }));
  for (const [name, text] of Object.entries(modules)) writeFileSync(join(dir, 'src', name), text);
  const readme = join(dir, 'README.md');
  writeFileSync(readme, ['# demo', '', 'Prose before.', '', '<!-- modules:start src -->', ...table, '<!-- modules:end -->', '', 'Prose after.', ''].join('\n'));
  return readme;
}

describe('README module tables', () => {
  it('match the module headers of every package', () => {
    const check = moduleTables('--check');

    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  describe('on a README whose table is out of date', () => {
    const root = mkdtempSync(join(tmpdir(), 'module-tables-'));
    let readme: string;

    beforeAll(() => {
      readme = createPackage(
        root,
        {
          'index.ts': "// @module The entry: everything | at once\nexport * from './extra.js';\n",
          'extra.ts': '// @module `extra()`: one more thing\nexport const extra = () => 1;\n',
          'extra.test.ts': "import { it } from 'vitest';\n",
        },
        ['| `index.ts` | hand-written |'],
      );
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('fails the check, naming the README and the command that rewrites it', () => {
      const check = moduleTables('--check', '--root', root);

      expect(check.status).toBe(1);
      expect(check.stderr).toContain('packages/demo/README.md');
      expect(check.stderr).toContain('pnpm docs:modules');
      expect(readFileSync(readme, 'utf8')).toContain('hand-written');
    });

    it('rewrites only the table between the markers, one row per module but tests, after which the check passes', () => {
      const write = moduleTables('--root', root);
      const text = readFileSync(readme, 'utf8');

      expect(write.status).toBe(0);
      expect(text).not.toContain('hand-written');
      expect(text).toContain('| `extra.ts` (`@msa/demo/extra`) | `extra()`: one more thing |\n| `index.ts` | The entry: everything \\| at once |\n');
      expect(text).not.toContain('extra.test.ts');
      expect(text.startsWith('# demo\n\nProse before.\n\n<!-- modules:start src -->\n')).toBe(true);
      expect(text.endsWith('<!-- modules:end -->\n\nProse after.\n')).toBe(true);
      expect(moduleTables('--check', '--root', root).status).toBe(0);
    });
  });

  describe('on a module without a header', () => {
    const root = mkdtempSync(join(tmpdir(), 'module-tables-'));

    beforeAll(() => {
      createPackage(root, { 'bare.ts': '// What this is for, but not as a header.\nexport const bare = 1;\n' }, []);
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    it('fails, naming the module and the header it needs, even when writing', () => {
      const write = moduleTables('--root', root);

      expect(write.status).toBe(1);
      expect(write.stderr).toContain('packages/demo/src/bare.ts');
      expect(write.stderr).toContain('// @module');
      expect(moduleTables('--check', '--root', root).status).toBe(1);
    });
  });
});
