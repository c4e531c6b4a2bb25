// .env.example documents every variable of every app, one comment line each,
// names every variable docker compose reads, and holds no secret. It is
// written by `pnpm docs:env` from the env schemas (env-tables.test.ts shows
// the check at work on a copy).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPS, ROOT, envSchemaOf, readText, shapeOf } from './deploy-support.js';

const lines = readText('.env.example').split('\n');
const VAR_LINE = /^(?:#\s?)?([A-Z][A-Z0-9_]*)=(.*)$/;

/** Variable name → its line's index. */
const documented = new Map<string, number>();
lines.forEach((line, i) => {
  const m = VAR_LINE.exec(line);
  if (m) documented.set(m[1]!, i);
});

describe('.env.example', () => {
  it('is what `pnpm docs:env` writes from the env schemas', () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'scripts', 'env-tables.mjs'), '--check'], { encoding: 'utf8' });

    expect(check.stderr.split('\n').filter((line) => line.startsWith('.env.example'))).toEqual([]);
  });

  it.each(APPS)('lists every variable of %s under a one-line description', async (app) => {
    const names = Object.keys(shapeOf(await envSchemaOf(app)));

    const problems = names.filter((name) => {
      const i = documented.get(name);
      if (i === undefined || i === 0) return true;
      const above = lines[i - 1]!;
      return !/^#\s+\S/.test(above) || VAR_LINE.test(above);
    });

    expect(problems).toEqual([]);
  });

  it('names every variable docker-compose.yml reads from .env', () => {
    const used = [...readText('docker-compose.yml').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!);

    expect([...new Set(used)].filter((name) => !documented.has(name))).toEqual([]);
  });

  it('holds no secret value', () => {
    const secrets = lines
      .map((line) => VAR_LINE.exec(line))
      .filter((m): m is RegExpExecArray => m !== null && /SECRET|PASSWORD|SIGNING_KEY/.test(m[1]!));

    expect(secrets.length).toBeGreaterThan(0);
    expect(secrets.filter((m) => m[2] !== '')).toEqual([]);
  });
});
