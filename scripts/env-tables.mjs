// `pnpm docs:env`: writes the environment table of every README from the env
// schema it names, so the `.describe()` texts in config.ts are the only copy.
// A table sits between `<!-- env:start <Export> -->` and `<!-- env:end -->`;
// <Export> is the schema's export in the package's built `dist/config.js`.
// With --check nothing is written: it lists the READMEs that are out of date
// and exits 1. --root <dir> reads the READMEs of another tree (tests).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BLOCK = /(<!-- env:start (\w+) -->\n)[\s\S]*?(<!-- env:end -->)/g;
const REGENERATE = 'pnpm docs:env';

const { describeEnv } = await import(pathToFileURL(path.join(REPO_ROOT, 'packages/service-kit/dist/config.js')).href);

function cell(text) {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultOf(row) {
  if (row.required) return 'required';
  const value = row.default;
  if (value === undefined) return 'unset';
  if (value === '' || (Array.isArray(value) && value.length === 0)) return 'empty';
  const text = Array.isArray(value) ? value.join(',') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return `\`${cell(text)}\``;
}

/** The Markdown table of an env schema: one row per variable, in schema order. */
function renderEnvTable(schema) {
  const rows = describeEnv(schema).map((row) => `| \`${row.name}\` | ${defaultOf(row)} | ${cell(row.description)} |`);
  return [
    `<!-- written by ${REGENERATE} from src/config.ts: edit the .describe() texts there -->`,
    '| variable | default | meaning |',
    '|---|---|---|',
    ...rows,
  ].join('\n') + '\n';
}

function readmesUnder(root) {
  return ['apps', 'packages'].flatMap((group) => {
    const dir = path.join(root, group);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'README.md')))
      .map((d) => path.join(dir, d.name, 'README.md'));
  });
}

/** The README with each env block rewritten from its schema. */
async function regenerate(readme) {
  const text = readFileSync(readme, 'utf8');
  const blocks = [...text.matchAll(BLOCK)];
  if (blocks.length === 0) return text;
  const configPath = path.join(path.dirname(readme), 'dist/config.js');
  if (!existsSync(configPath)) throw new Error(`${configPath} is missing: build first (pnpm build)`);
  const config = await import(pathToFileURL(configPath).href);
  return text.replace(BLOCK, (_all, start, exportName, end) => {
    const schema = config[exportName];
    if (!schema?.shape) throw new Error(`${readme}: ${configPath} exports no env schema ${exportName}`);
    return `${start}${renderEnvTable(schema)}${end}`;
  });
}

async function main(args) {
  const check = args.includes('--check');
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? path.resolve(args[rootAt + 1]) : REPO_ROOT;
  const stale = [];
  for (const readme of readmesUnder(root)) {
    const before = readFileSync(readme, 'utf8');
    const after = await regenerate(readme);
    if (after === before) continue;
    stale.push(path.relative(root, readme));
    if (!check) writeFileSync(readme, after);
  }
  if (!check) {
    for (const file of stale) console.log(`${file}: env table rewritten`);
    return 0;
  }
  for (const file of stale) console.error(`${file}: env table differs from its config.ts; run \`${REGENERATE}\``);
  return stale.length === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
