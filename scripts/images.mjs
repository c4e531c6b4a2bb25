// `pnpm images [app …]`: builds every service's image from infra/Dockerfile,
// one after another, with podman when it is installed and docker otherwise,
// then starts each one the way docker-compose.yml runs it and checks its
// budgets. Exits 1 when any image fails to build, start, answer /healthz,
// stop on SIGTERM within the grace period, or stay within a budget:
// - it adds at most ADDED_MB_BUDGET to its base;
// - it runs as a user other than root, on a read-only root filesystem;
// - NODE_ENV=production is in its config;
// - /app holds no development dependency and no source beside dist/.
// Where the base image cannot be pulled, infra/stand-in-base.sh builds a
// stand-in under its name (once; it is reused while present).
//
// Containers run on the host's network with free ports of their own, so
// the services that need Redis at start reach this machine's (REDIS_URL,
// default redis://127.0.0.1:6379) under a key prefix of this run, deleted
// afterwards. Build logs go to .data/images/<app>.build.log.
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_BUILD_ARGS, serviceNodeOptions } from './node-options.mjs';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The system tests' dependencies: a YAML parser and a Redis client.
const requireTooling = createRequire(join(root, 'tooling', 'system-tests', 'package.json'));
const YAML = requireTooling('yaml');

const ADDED_MB_BUDGET = 100;
/** Above it the process was not stopped by SIGTERM (SHUTDOWN_DEADLINE_MS is 10 s). */
const STOP_GRACE_S = 10;
const HEALTHZ_WAIT_MS = 30_000;
const MB = 1_000_000;
/** Always development-only; the apps' own devDependencies are added per image. */
const TOOLCHAIN = ['typescript', 'vitest', 'eslint', 'tsx', 'turbo', 'typescript-eslint', '@vitest/', '@types/'];

export const engine = onPath('podman') ? 'podman' : 'docker';
const logDir = join(root, '.data', 'images');
const runId = randomBytes(4).toString('hex');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisKeyPrefix = `images-${runId}:`;
const queuePrefix = `{images-${runId}}`;
const started = new Set();

export function onPath(cmd) {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, cmd)));
}

function say(line) {
  process.stdout.write(`${line}\n`);
}

/** Runs the engine and returns its stdout; throws with its stderr when it fails. */
export function run(args, { allowFail = false, timeoutMs } = {}) {
  const result = spawnSync(engine, args, { encoding: 'utf8', maxBuffer: 64 * MB, timeout: timeoutMs });
  if (result.status !== 0 && !allowFail) {
    throw new Error(`${engine} ${args.slice(0, 2).join(' ')} failed: ${(result.stderr || result.error?.message || '').trim().split('\n').slice(-5).join(' | ')}`);
  }
  return result.status === 0 ? result.stdout : undefined;
}

export function inspectImage(name) {
  const out = run(['image', 'inspect', name], { allowFail: true });
  return out ? JSON.parse(out)[0] : undefined;
}

export function imageSize(info) {
  return info.Size ?? info.VirtualSize;
}

export function mb(bytes) {
  return `${(bytes / MB).toFixed(1)} MB`;
}

/** The seven services built from infra/Dockerfile, as docker-compose.yml names and configures them. */
export function composeServices() {
  const compose = YAML.parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
  return Object.entries(compose.services)
    .filter(([, s]) => s.build?.dockerfile === 'infra/Dockerfile')
    .map(([name, s]) => ({ name, image: s.image, args: Object.fromEntries(Object.entries(s.build.args ?? {}).map(([k, v]) => [k, String(v)])), environment: s.environment ?? {} }));
}

/** The services' base, `node:<version>` from infra/Dockerfile's NODE_VERSION. */
export function nodeBase() {
  const version = /^ARG NODE_VERSION=(\S+)$/m.exec(readFileSync(join(root, 'infra', 'Dockerfile'), 'utf8'))?.[1];
  if (!version) throw new Error('infra/Dockerfile has no ARG NODE_VERSION=…');
  return `node:${version}`;
}

/** A compose service's build arguments, with the per-app ones of scripts/node-options.mjs. */
export function buildArgsOf(service) {
  return { APP: service.args.APP ?? service.name, PORT: service.args.PORT, ...service.args, ...SERVICE_BUILD_ARGS[service.name] };
}

/** Fresh secrets for `${NAME:?…}` (what infra/generate-env.mjs writes into .env). */
export function runSecrets() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().trim();
  return {
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    TOKEN_SIGNING_KEY: pem.replace(/\n/g, '\\n'),
    TOKEN_SIGNING_KID: `images-${runId}`,
    ADMIN_PASSWORD: randomBytes(18).toString('base64url'),
  };
}

/** Compose's `${NAME}`, `${NAME:-default}` and `${NAME:?error}`, from the run's secrets and the defaults. */
export function interpolate(value, secrets) {
  return String(value).replace(/\$\{([A-Z0-9_]+)(?::?([-?])([^}]*))?\}/g, (_, name, op, rest) => {
    if (secrets[name] !== undefined) return secrets[name];
    if (op === '-') return rest;
    if (op === '?') throw new Error(`docker-compose.yml needs ${name}, which this script does not generate`);
    return '';
  });
}

/** `NAME_PORT` variables of an app's env schema with their defaults. */
export function portVariables(app) {
  const config = readFileSync(join(root, 'apps', app, 'src', 'config.ts'), 'utf8');
  return [...config.matchAll(/^\s*([A-Z][A-Z0-9_]*_PORT): z\.coerce\.number\(\)[^\n]*?\.default\(([\d_]+)\)/gm)].map((m) => ({
    name: m[1],
    port: Number(m[2].replace(/_/g, '')),
  }));
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function devDependencyNames(app) {
  const names = new Set();
  const visit = (dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    for (const name of Object.keys(pkg.devDependencies ?? {})) if (!pkg.dependencies?.[name]) names.add(name);
    for (const [dep, version] of Object.entries(pkg.dependencies ?? {})) {
      if (version.startsWith('workspace:') && dep.startsWith('@msa/')) visit(join('packages', dep.slice('@msa/'.length)));
    }
  };
  visit(join('apps', app));
  return [...names];
}

/**
 * Runs inside the image, as its user, read-only and without a network: what
 * /app holds that a runtime needs not. argv: the dev dependency names and
 * toolchain prefixes.
 */
const CONTENT_CHECK = String.raw`
const fs = require('node:fs');
const path = require('node:path');
const [devNames, toolchain] = process.argv.slice(1).map((a) => JSON.parse(a));
const found = { devDependencies: [], toolchain: [], sources: [] };
const isTool = (name) => toolchain.some((t) => (t.endsWith('/') ? name.startsWith(t) : name === t));
function topLevel(nm) {
  if (!fs.existsSync(nm)) return [];
  return fs.readdirSync(nm).filter((e) => !e.startsWith('.')).flatMap((e) => (e.startsWith('@') ? fs.readdirSync(path.join(nm, e)).map((s) => e + '/' + s) : [e]));
}
function sources(dir, rel) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const r = rel ? rel + '/' + entry.name : entry.name;
    if (entry.name === 'node_modules') continue;
    if (entry.isDirectory()) {
      if (['src', 'test', 'tests', '__tests__'].includes(entry.name)) found.sources.push(r + '/');
      else sources(path.join(dir, entry.name), r);
    } else if (/\.[cm]?tsx?$/.test(entry.name) && !(/\.d\.[cm]?ts$/.test(entry.name) && r.split('/').includes('dist'))) found.sources.push(r);
    else if (/^(tsconfig.*\.json|vitest\.config\..*|eslint\.config\..*)$/.test(entry.name)) found.sources.push(r);
  }
}
const packages = [['/app', '/app']];
for (const name of topLevel('/app/node_modules').filter((n) => n.startsWith('@msa/'))) packages.push(['/app/node_modules/' + name, fs.realpathSync('/app/node_modules/' + name)]);
for (const [label, dir] of packages) {
  for (const name of topLevel(path.join(dir, 'node_modules'))) {
    if (devNames.includes(name) || isTool(name)) found.devDependencies.push(label + '/node_modules/' + name);
  }
  sources(dir, label);
}
const store = '/app/node_modules/.pnpm';
for (const entry of fs.existsSync(store) ? fs.readdirSync(store) : []) {
  const match = /^(@[^+@]+\+[^@]+|[^@]+)@/.exec(entry);
  const name = match ? match[1].replace('+', '/') : entry;
  if (!name.startsWith('@types/') && isTool(name)) found.toolchain.push(entry);
}
console.log(JSON.stringify(found));
`;

/** Where the official base cannot be pulled, the stand-in under its name. */
export function ensureBase(base) {
  const official = `docker.io/library/${base}`;
  if (inspectImage(official)) return;
  say(`${base}: not here, pulling`);
  if (run(['pull', official], { allowFail: true, timeoutMs: 10 * 60_000 }) !== undefined) return;
  say(`${base}: cannot be pulled; building a stand-in (infra/stand-in-base.sh)`);
  const built = spawnSync(join(root, 'infra', 'stand-in-base.sh'), [], { stdio: 'inherit', env: { ...process.env, ENGINE: engine } });
  if (built.status !== 0) throw new Error(`no base image ${base}: the pull and the stand-in both failed`);
}

export function build(service, buildArgs) {
  mkdirSync(logDir, { recursive: true });
  const log = join(logDir, `${service.name}.build.log`);
  const args = ['build', '-f', 'infra/Dockerfile', '-t', service.image, '--network', 'host'];
  // --format docker keeps the HEALTHCHECK; the base is local by now.
  if (engine === 'podman') args.push('--format', 'docker', '--pull=never', '--ignorefile', 'infra/Dockerfile.dockerignore');
  for (const [k, v] of Object.entries(buildArgs)) args.push('--build-arg', `${k}=${v}`);
  args.push('.');
  const t0 = performance.now();
  const result = spawnSync(engine, args, { cwd: root, encoding: 'utf8', maxBuffer: 256 * MB });
  writeFileSync(log, `${engine} ${args.join(' ')}\n${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (result.status !== 0) {
    const tail = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n  ');
    throw new Error(`build failed (log: ${log}):\n  ${tail}`);
  }
  return (performance.now() - t0) / 1000;
}

async function healthz(port) {
  const deadline = Date.now() + HEALTHZ_WAIT_MS;
  const t0 = performance.now();
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return (performance.now() - t0) / 1000;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return undefined;
}

/** Stops a container with SIGTERM alone; the engine's wait returns its exit code. */
function stopWithSigterm(container) {
  const t0 = performance.now();
  run(['kill', '--signal', 'TERM', container]);
  return new Promise((resolve) => {
    const waiter = spawn(engine, ['wait', container], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    waiter.stdout.on('data', (d) => (out += d));
    const timer = setTimeout(() => waiter.kill(), STOP_GRACE_S * 1000);
    waiter.on('close', () => {
      clearTimeout(timer);
      const seconds = (performance.now() - t0) / 1000;
      const code = /^\d+$/.test(out.trim()) ? Number(out.trim()) : undefined;
      resolve({ seconds, code: seconds <= STOP_GRACE_S ? code : undefined });
    });
  });
}

async function check(service, base, secrets) {
  const app = service.args.APP;
  const failures = [];
  const facts = {};
  const image = inspectImage(service.image);
  const baseInfo = inspectImage(base);
  facts.size = imageSize(image);
  facts.added = facts.size - imageSize(baseInfo);
  const baseLayers = baseInfo.RootFS?.Layers ?? [];
  if (!baseLayers.every((l, i) => image.RootFS?.Layers?.[i] === l)) failures.push(`does not build on ${base}'s layers`);
  if (facts.added > ADDED_MB_BUDGET * MB) failures.push(`adds ${mb(facts.added)} to its base (budget ${ADDED_MB_BUDGET} MB)`);

  const config = image.Config ?? {};
  const env = Object.fromEntries((config.Env ?? []).map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  if (!config.User || /^(root|0)(:|$)/.test(config.User)) failures.push(`Config.User is '${config.User ?? ''}'`);
  if (env.NODE_ENV !== 'production') failures.push(`NODE_ENV is '${env.NODE_ENV ?? ''}'`);
  if (env.NODE_OPTIONS !== serviceNodeOptions(root, app)) failures.push(`NODE_OPTIONS '${env.NODE_OPTIONS}' is not what scripts/node-options.mjs reads`);

  const content = run(['run', '--rm', '--network', 'none', '--read-only', '--no-healthcheck', '--entrypoint', 'node', service.image, '-e', CONTENT_CHECK, JSON.stringify(devDependencyNames(app)), JSON.stringify(TOOLCHAIN)]);
  const found = JSON.parse(content);
  if (found.devDependencies.length) failures.push(`development dependencies: ${found.devDependencies.join(', ')}`);
  if (found.toolchain.length) failures.push(`toolchain in the store: ${found.toolchain.join(', ')}`);
  if (found.sources.length) failures.push(`sources beside dist/: ${found.sources.slice(0, 8).join(', ')}`);

  // Started as compose starts it, on free ports of the host's network.
  const runEnv = Object.fromEntries(Object.entries(service.environment).map(([k, v]) => [k, interpolate(v, secrets)]));
  let healthPort;
  for (const { name, port } of portVariables(app)) {
    runEnv[name] = String(await freePort());
    if (String(port) === service.args.PORT) healthPort = runEnv[name];
  }
  if (!healthPort) throw new Error(`apps/${app}/src/config.ts has no *_PORT defaulting to the PORT build arg ${service.args.PORT}`);
  runEnv.HEALTHCHECK_PORT = healthPort;
  if ('REDIS_URL' in runEnv) Object.assign(runEnv, { REDIS_URL: redisUrl, REDIS_CLUSTER_NODES: '', REDIS_KEY_PREFIX: redisKeyPrefix, QUEUE_PREFIX: queuePrefix });

  const container = `msa-images-${app}-${runId}`;
  const runArgs = ['run', '-d', '--name', container, '--network', 'host', '--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--no-healthcheck'];
  for (const [k, v] of Object.entries(runEnv)) runArgs.push('-e', `${k}=${v}`);
  run([...runArgs, service.image]);
  started.add(container);
  try {
    facts.healthz = await healthz(healthPort);
    if (facts.healthz === undefined) {
      failures.push(`no 200 from /healthz within ${HEALTHZ_WAIT_MS / 1000} s`);
    } else {
      const probe = `const fs = require('node:fs');
        const uid = /^Uid:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/1/status', 'utf8'))[1];
        const rootMount = fs.readFileSync('/proc/mounts', 'utf8').split('\\n').map((l) => l.split(' ')).filter((f) => f[1] === '/').at(-1);
        console.log(JSON.stringify({ uid: Number(uid), readOnly: rootMount[3].split(',').includes('ro') }));`;
      const inside = JSON.parse(run(['exec', container, 'node', '-e', probe]));
      facts.uid = inside.uid;
      if (inside.uid === 0) failures.push('the process runs as root');
      if (!inside.readOnly) failures.push('the root filesystem is writable');
      const test = (config.Healthcheck ?? image.Healthcheck)?.Test ?? [];
      if (test[0] !== 'CMD' || run(['exec', container, ...test.slice(1)], { allowFail: true }) === undefined) failures.push("the image's HEALTHCHECK does not pass");
    }
    const stop = await stopWithSigterm(container);
    facts.stop = stop;
    if (stop.code === undefined) failures.push(`still running ${STOP_GRACE_S} s after SIGTERM`);
    else if (stop.code !== 0 && stop.code !== 143) failures.push(`exited with ${stop.code} on SIGTERM`);
  } finally {
    if (failures.length) facts.logs = (run(['logs', '--tail', '20', container], { allowFail: true }) ?? '').trim();
    run(['rm', '-f', container], { allowFail: true });
    started.delete(container);
  }
  return { failures, facts };
}

/** Deletes what the services wrote to Redis under this run's prefixes. */
async function cleanRedis() {
  const { Redis } = requireTooling('ioredis');
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    for (const match of [`${redisKeyPrefix}*`, `${queuePrefix}*`, `*${queuePrefix}*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 500);
        if (keys.length) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } catch {
    // Redis was not reachable: nothing was written.
  } finally {
    redis.disconnect();
  }
}

function removeStarted() {
  for (const container of started) run(['rm', '-f', container], { allowFail: true });
}
async function main() {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      removeStarted();
      process.exit(130);
    });
  }

  const only = process.argv.slice(2);
  const services = composeServices().filter((s) => !only.length || only.includes(s.name));
  if (!services.length) {
    say(`no service named ${only.join(', ')} in docker-compose.yml`);
    process.exit(1);
  }
  const base = `docker.io/library/${nodeBase()}`;
  ensureBase(nodeBase());
  const standIn = /^stand-in/.test(inspectImage(base)?.Config?.Labels?.['org.opencontainers.image.description'] ?? '');
  say(`${engine}: ${services.length} image(s) on ${base}${standIn ? ' (stand-in)' : ''}, ${mb(imageSize(inspectImage(base)))}`);

  const secrets = runSecrets();
  const results = [];
  for (const service of services) {
    const buildArgs = buildArgsOf(service);
    say(`\n${service.image}: building (${Object.entries(buildArgs).map(([k, v]) => `${k}=${v}`).join(' ')})`);
    let result;
    try {
      const seconds = build(service, buildArgs);
      say(`${service.image}: built in ${seconds.toFixed(0)} s`);
      result = await check({ ...service, args: buildArgs }, base, secrets);
    } catch (err) {
      result = { failures: [err instanceof Error ? err.message : String(err)], facts: {} };
    }
    const { facts, failures } = result;
    if (facts.size !== undefined) {
      say(
        `${service.image}: ${mb(facts.size)}, adds ${mb(facts.added)} to its base; ` +
          `uid ${facts.uid ?? '?'}; /healthz ${facts.healthz === undefined ? 'no answer' : `after ${facts.healthz.toFixed(1)} s`}; ` +
          `SIGTERM: ${facts.stop?.code === undefined ? 'not stopped' : `exit ${facts.stop.code} in ${facts.stop.seconds.toFixed(1)} s`}`,
      );
    }
    for (const failure of failures) say(`${service.image}: FAIL ${failure}`);
    if (facts.logs) say(`  last log lines:\n  ${facts.logs.split('\n').join('\n  ')}`);
    results.push({ service, ...result });
  }
  await cleanRedis();

  say('\nimage                 size       added      uid   healthz  stop           budgets');
  for (const { service, facts, failures } of results) {
    say(
      [
        service.image.padEnd(20),
        (facts.size === undefined ? '-' : mb(facts.size)).padStart(9),
        (facts.added === undefined ? '-' : mb(facts.added)).padStart(10),
        String(facts.uid ?? '-').padStart(5),
        (facts.healthz === undefined ? '-' : `${facts.healthz.toFixed(1)} s`).padStart(8),
        (facts.stop?.code === undefined ? '-' : `${facts.stop.code} ${facts.stop.seconds.toFixed(1)} s`).padStart(13),
        failures.length ? `FAIL (${failures.length})` : 'ok',
      ].join('  '),
    );
  }
  const failed = results.filter((r) => r.failures.length).length;
  say(failed ? `\n${failed} of ${results.length} image(s) failed` : `\nall ${results.length} image(s) within budget (added ≤ ${ADDED_MB_BUDGET} MB, non-root, read-only, NODE_ENV=production, no dev dependencies or sources, SIGTERM ≤ ${STOP_GRACE_S} s)`);
  process.exit(failed ? 1 : 0);
}

// Run as `pnpm images`; imported (the whole-system test), it only lends its functions.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
