// `pnpm docs:modules`: writes the module table of a package README from the
// one-line header each module of its source folder opens with, so what a
// module is for is written once, beside its code:
//   // @module `createThing(options)`: what it is for
// A README table sits between `<!-- modules:start <dir> -->` and
// `<!-- modules:end -->`; <dir> is the source folder, relative to the README.
// Every non-test `.ts` file there is one row, in name order, with its subpath
// export (`@msa/<pkg>/<name>`) when the package.json exports it on its own.
// With --check nothing is written: it lists the out-of-date READMEs and the
// modules without a header, and exits 1. --root <dir> reads another tree (tests).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmesUnder } from './readmes.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BLOCK = /(<!-- modules:start ([\w./-]+) -->\n)[\s\S]*?(<!-- modules:end -->)/g;
const HEADER = /^\/\/ @module (\S.*)$/;
const REGENERATE = 'pnpm docs:modules';

function cell(text) {
  return text.replace(/\|/g, '\\|');
}

/** The modules of a source folder: every `.ts` file but tests, by name. */
function modulesIn(dir) {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .sort();
}

/** `redis.ts` → `@msa/service-kit/redis`, for the modules the package exports as subpaths of their own. */
function subpathsOf(packageDir) {
  const manifest = path.join(packageDir, 'package.json');
  if (!existsSync(manifest)) return new Map();
  const { name, exports = {} } = JSON.parse(readFileSync(manifest, 'utf8'));
  const subpaths = new Map();
  for (const [subpath, target] of Object.entries(exports)) {
    const file = typeof target === 'string' ? target : target.default;
    if (subpath === '.' || typeof file !== 'string') continue;
    subpaths.set(`${path.basename(file, '.js')}.ts`, `${name}${subpath.slice(1)}`);
  }
  return subpaths;
}

/** The table of a source folder, and the modules that have no header. */
function renderModuleTable(readme, srcDir) {
  const dir = path.join(path.dirname(readme), srcDir);
  if (!existsSync(dir)) throw new Error(`${readme}: no folder ${srcDir}`);
  const subpaths = subpathsOf(path.dirname(readme));
  const missing = [];
  const rows = modulesIn(dir).map((name) => {
    const first = readFileSync(path.join(dir, name), 'utf8').split('\n', 1)[0];
    const header = HEADER.exec(first)?.[1];
    if (!header) missing.push(path.join(dir, name));
    const subpath = subpaths.get(name);
    return `| \`${name}\`${subpath ? ` (\`${subpath}\`)` : ''} | ${cell(header ?? '')} |`;
  });
  const table = [
    `<!-- written by ${REGENERATE} from the first line of each module: edit the \`// @module\` headers there -->`,
    '| module | what |',
    '|---|---|',
    ...rows,
  ].join('\n') + '\n';
  return { table, missing };
}

function regenerate(readme) {
  const text = readFileSync(readme, 'utf8');
  const missing = [];
  const next = text.replace(BLOCK, (_all, start, srcDir, end) => {
    const rendered = renderModuleTable(readme, srcDir);
    missing.push(...rendered.missing);
    return `${start}${rendered.table}${end}`;
  });
  return { text, next, missing };
}

function main(argv) {
  const check = argv.includes('--check');
  const rootAt = argv.indexOf('--root');
  const root = rootAt >= 0 ? path.resolve(argv[rootAt + 1]) : REPO_ROOT;
  const stale = [];
  const missing = [];
  for (const readme of readmesUnder(root)) {
    const result = regenerate(readme);
    missing.push(...result.missing);
    if (result.next === result.text) continue;
    if (check) stale.push(readme);
    else writeFileSync(readme, result.next);
  }
  const relative = (file) => path.relative(root, file);
  for (const file of missing) console.error(`${relative(file)}: no one-line header; its first line must be \`// @module <what it is for>\``);
  for (const readme of stale) console.error(`${relative(readme)}: module table out of date; run ${REGENERATE}`);
  if (missing.length > 0 || stale.length > 0) process.exitCode = 1;
}

main(process.argv.slice(2));
