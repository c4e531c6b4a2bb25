// `pnpm docs:env`: writes the environment table of every README and the
// root `.env.example` from the env schemas, so the `.describe()` texts in
// config.ts are the only copy.
// A README table sits between `<!-- env:start <Export> -->` and
// `<!-- env:end -->`; <Export> is the schema's export in the package's built
// `dist/config.js`. `.env.example` lists every variable of every app once,
// in the sections of ENV_EXAMPLE_SECTIONS below; each app's schema is the
// `<App>Env` export of `apps/<app>/dist/config.js`.
// With --check nothing is written: it lists the files that are out of date
// and exits 1. --root <dir> reads the files of another tree (tests); its
// `.env.example` is written only when the tree has one.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readmesUnder } from './readmes.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BLOCK = /(<!-- env:start (\w+) -->\n)[\s\S]*?(<!-- env:end -->)/g;
const REGENERATE = 'pnpm docs:env';

const { CommonEnv, RedisEnv, describeEnv } = await import(pathToFileURL(path.join(REPO_ROOT, 'packages/service-kit/dist/config.js')).href);
const { SERVICE_NAMES } = await import(pathToFileURL(path.join(REPO_ROOT, 'packages/contracts/dist/index.js')).href);

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

// .env.example

const ENV_EXAMPLE_HEADER = [
  '# Environment of the Merch-Shop Agent API services. Never commit a filled-in copy.',
  `# Written by ${REGENERATE} from each app's src/config.ts: edit the .describe() texts there.`,
  '#',
  '# docker compose: copy this file to .env (or `node infra/generate-env.mjs > .env`)',
  '# and fill in the secrets. Compose reads the uncommented lines and the ones',
  '# marked [compose], and passes each service only the variables it needs.',
  '# A service started any other way (node dist/main.js, an orchestrator) reads',
  '# every variable below from its environment; a commented line shows the default.',
];

/**
 * What `.env` holds besides settings: the secrets and the variables that go
 * with them (earlier signing keys, the queue UI's user).
 */
const SECRETS = ['INTERNAL_AUTH_SECRET', 'TOKEN_SIGNING_KEY', 'TOKEN_SIGNING_KID', 'TOKEN_VERIFY_KEYS', 'ADMIN_USER', 'ADMIN_PASSWORD'];

/** What .env.example says about a section beyond its variables' descriptions. */
const SECTION_NOTES = {
  secrets: ['`node infra/generate-env.mjs` writes fresh ones; a secret alone can come from `openssl rand -hex 32`.'],
  common: [
    'Compose and the manifests set NODE_ENV=production; set PUBLIC_BASE_URL to the address clients use.',
    'Orchestrators must wait longer than SHUTDOWN_DEADLINE_MS before they kill a service.',
  ],
  redis: [
    'One of three topologies (docs/operations.md, "Redis topologies"): REDIS_URL, or REDIS_CLUSTER_NODES, or REDIS_SENTINELS with REDIS_SENTINEL_NAME.',
    'docker compose --profile redis-cluster: REDIS_CLUSTER_NODES=redis-node-1:6379,redis-node-2:6379,redis-node-3:6379',
  ],
  'intake-worker': ['docker compose sends every e-mail to its Mailpit.'],
};

/** The unit of a number, from the variable's name. */
const UNITS = [
  [/_MS$/, 'milliseconds'],
  [/_SECONDS$/, 'seconds'],
  [/_BYTES$/, 'bytes'],
];

/**
 * The sections of .env.example, in order: a title, notes, and the variables
 * listed there. A variable appears in the first section that names it;
 * every app's section lists the rest of its schema. In the sections of a
 * shared schema (`shared`) the lines do not repeat who reads a variable.
 */
function envExampleSections(apps) {
  return [
    { title: 'Secrets: no defaults in production (NODE_ENV=production)', notes: SECTION_NOTES.secrets, names: SECRETS },
    { title: 'Every service', notes: SECTION_NOTES.common, names: Object.keys(CommonEnv.shape), shared: true },
    {
      title: `Redis: ${listOf(readersOf('REDIS_URL', apps))}`,
      notes: SECTION_NOTES.redis,
      names: Object.keys(RedisEnv.shape),
      shared: true,
    },
    {
      title: 'Service addresses (internal URLs the callers use)',
      names: apps.map(({ name }) => `${name.toUpperCase()}_URL`).filter((name) => readersOf(name, apps).length > 0),
    },
    ...apps.map(({ name, schema }) => ({ title: name, notes: SECTION_NOTES[name], names: Object.keys(schema.shape) })),
  ];
}

function readersOf(name, apps) {
  return apps.filter(({ schema }) => name in schema.shape).map((app) => app.name);
}

function listOf(names, and = 'and') {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} ${and} ${names.at(-1)}`;
}

/** An env value as a .env file writes it: lists comma-separated, JSON for objects. */
function envText(value) {
  if (value === undefined) return '';
  if (Array.isArray(value)) return value.every((v) => typeof v !== 'object') ? value.join(',') : JSON.stringify(value);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The variables docker-compose.yml reads from .env, and the ones it cannot start without. */
function composeReads(root) {
  const file = path.join(root, 'docker-compose.yml');
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const reads = new Set();
  const requires = new Set();
  for (const [, name, op] of text.matchAll(/\$\{([A-Z][A-Z0-9_]*)(:?[-?])?/g)) {
    reads.add(name);
    if (op?.endsWith('?')) requires.add(name);
  }
  return { reads, requires };
}

/** .env.example: every variable of every app once, under its description, in the sections above. */
async function renderEnvExample(root) {
  const apps = [];
  for (const name of SERVICE_NAMES) {
    const configPath = path.join(root, 'apps', name, 'dist', 'config.js');
    if (!existsSync(configPath)) throw new Error(`${configPath} is missing: build first (pnpm build)`);
    const exportName = `${name.replace(/(^|-)(\w)/g, (_all, _dash, c) => c.toUpperCase())}Env`;
    const schema = (await import(pathToFileURL(configPath).href))[exportName];
    if (!schema?.shape) throw new Error(`${configPath} exports no env schema ${exportName}`);
    apps.push({ name, schema });
  }
  const compose = composeReads(root);
  const written = new Set();
  const lines = [...ENV_EXAMPLE_HEADER];
  for (const { title, notes = [], names, shared = false } of envExampleSections(apps)) {
    const fresh = names.filter((name) => !written.has(name));
    if (fresh.length === 0) continue;
    lines.push('', `## ${title}`, '');
    if (notes.length > 0) lines.push(...notes.map((note) => `# ${note}`), '');
    for (const name of fresh) {
      written.add(name);
      const readers = readersOf(name, apps);
      if (readers.length === 0) throw new Error(`.env.example: no app reads ${name}`);
      // The description is the first reader's (apps in SERVICE_NAMES order).
      const row = describeEnv(apps.find((app) => app.name === readers[0]).schema).find((r) => r.name === name);
      const values = row.values ? `: ${listOf(row.values, 'or')}` : '';
      const unit = UNITS.find(([suffix]) => suffix.test(name))?.[1];
      const onlyThisApp = readers.length === 1 && readers[0] === title;
      const readBy = shared || onlyThisApp || readers.length === apps.length ? '' : ` (read by ${listOf(readers)})`;
      const required = row.required || compose.requires.has(name);
      const mark = !required && compose.reads.has(name) ? ' [compose]' : '';
      lines.push(`# ${row.description.replace(/\s*\n\s*/g, ' ')}${values}${unit ? ` (${unit})` : ''}${readBy}${mark}`);
      lines.push(required ? `${name}=` : `# ${name}=${envText(row.default)}`);
    }
  }
  return lines.join('\n') + '\n';
}

async function main(args) {
  const check = args.includes('--check');
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? path.resolve(args[rootAt + 1]) : REPO_ROOT;
  const stale = [];
  const documents = readmesUnder(root).map((file) => ({ file, regenerate, what: 'env table', source: 'its config.ts' }));
  const envExample = path.join(root, '.env.example');
  if (root === REPO_ROOT || existsSync(envExample)) {
    documents.push({ file: envExample, regenerate: () => renderEnvExample(root), what: 'environment', source: 'the env schemas' });
  }
  for (const { file, regenerate: write, what, source } of documents) {
    const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const after = await write(file);
    if (after === before) continue;
    stale.push({ file: path.relative(root, file), what, source });
    if (!check) writeFileSync(file, after);
  }
  if (!check) {
    for (const { file, what } of stale) console.log(`${file}: ${what} rewritten`);
    return 0;
  }
  for (const { file, what, source } of stale) console.error(`${file}: ${what} differs from ${source}; run \`${REGENERATE}\``);
  return stale.length === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
