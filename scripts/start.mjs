// `pnpm start`: runs every service of the system on this machine, with the
// same environment a deployment would give them, and their logs prefixed.
// Redis: REDIS_CLUSTER_NODES or REDIS_SENTINELS as given, else REDIS_URL, else 127.0.0.1:6379, else a redis-server started here
// with its data in .data/redis. Development secrets are generated once into
// .data/dev-secrets.json. Ctrl-C stops everything.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { serviceMemoryEnv } from './node-options.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = join(root, '.data');
const watch = process.argv.includes('--watch');

const APPS = [
  { name: 'catalog', port: 8081 },
  { name: 'shops', port: 8082 },
  { name: 'requests', port: 8083 },
  { name: 'identity', port: 8084 },
  { name: 'mcp', port: 8085 },
  { name: 'intake-worker', port: 8086 },
  { name: 'gateway', port: 8080 },
];
const COLORS = [36, 35, 33, 32, 34, 96, 95, 93];

function log(line) {
  process.stdout.write(`\x1b[1m[start]\x1b[0m ${line}\n`);
}

function devSecrets() {
  const file = join(dataDir, 'dev-secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const secrets = {
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    TOKEN_SIGNING_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    TOKEN_SIGNING_KID: `dev-${randomBytes(4).toString('hex')}`,
    ADMIN_USER: 'admin',
    ADMIN_PASSWORD: randomBytes(12).toString('base64url'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  log(`generated development secrets in ${file}`);
  return secrets;
}

function redisAnswers(url) {
  return new Promise((resolve) => {
    const u = new URL(url);
    const socket = net.connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write(u.password ? `AUTH ${decodeURIComponent(u.username || 'default')} ${decodeURIComponent(u.password)}\r\nPING\r\n` : 'PING\r\n'));
    socket.on('data', (d) => {
      if (d.toString().includes('PONG')) done(true);
      else if (d.toString().startsWith('-')) done(false);
    });
  });
}

function onPath(cmd) {
  return (process.env.PATH ?? '').split(':').some((d) => d && existsSync(join(d, cmd)));
}

const children = [];
let stopping = false;

function prefixed(stream, name, color) {
  const rl = createInterface({ input: stream });
  const tag = `\x1b[${color}m${name.padEnd(13)}\x1b[0m|`;
  rl.on('line', (line) => process.stdout.write(`${tag} ${line}\n`));
}

function run(name, cmd, args, env, color) {
  const child = spawn(cmd, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  prefixed(child.stdout, name, color);
  prefixed(child.stderr, name, color);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      log(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push({ name, child });
  return child;
}

async function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  log('stopping…');
  // Services first (the gateway first of all), Redis last.
  const ordered = [...children].reverse();
  for (const { child } of ordered) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(
    ordered.map(({ child }) => (child.exitCode !== null ? null : new Promise((r) => child.once('exit', r)))),
  );
  process.exit(code);
}
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

async function ensureRedis() {
  // A Cluster or Sentinel set up by the caller: the services find it themselves, and wait for it to be ready.
  if (process.env.REDIS_CLUSTER_NODES || process.env.REDIS_SENTINELS) {
    log(`using Redis ${process.env.REDIS_CLUSTER_NODES ? `Cluster ${process.env.REDIS_CLUSTER_NODES}` : `Sentinels ${process.env.REDIS_SENTINELS}`}`);
    return undefined;
  }
  if (process.env.REDIS_URL) {
    if (await redisAnswers(process.env.REDIS_URL)) return process.env.REDIS_URL;
    throw new Error(`REDIS_URL=${process.env.REDIS_URL} does not answer.`);
  }
  const local = 'redis://127.0.0.1:6379';
  if (await redisAnswers(local)) return local;
  if (!onPath('redis-server')) {
    throw new Error(
      'No Redis answers on 127.0.0.1:6379 and redis-server is not installed. Install Redis ≥ 7 (e.g. `apt-get install redis-server`, `brew install redis`), run `docker run -p 6379:6379 redis:7`, or set REDIS_URL.',
    );
  }
  const dir = join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  log(`starting redis-server with its data in ${dir}`);
  run('redis', 'redis-server', ['--port', '6379', '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'], process.env, 31);
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers(local)) return local;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('redis-server did not answer within 10 s.');
}

async function waitReady(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !stopping) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

async function main() {
  mkdirSync(dataDir, { recursive: true });
  const secrets = devSecrets();
  const redisUrl = await ensureRedis();
  const base = process.env.PUBLIC_BASE_URL ?? 'http://localhost:8080';
  const env = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    PUBLIC_BASE_URL: base,
    ...Object.fromEntries(Object.entries(secrets).filter(([k]) => !process.env[k])),
    OUTBOX_DIR: process.env.OUTBOX_DIR ?? join(dataDir, 'outbox'),
  };
  APPS.forEach((app, i) => {
    const main = join(root, 'apps', app.name, 'dist', 'main.js');
    if (!existsSync(main)) {
      log(`skipping ${app.name}: ${main} is missing (run pnpm build)`);
      return;
    }
    // The app image's V8 flags and MALLOC_ARENA_MAX (infra/Dockerfile); the caller's own win.
    const appEnv = { ...serviceMemoryEnv(root, app.name), ...env };
    run(app.name, process.execPath, [...(watch ? ['--watch'] : []), main], appEnv, COLORS[i % COLORS.length]);
  });
  // The compiler is no service: it keeps the caller's NODE_OPTIONS.
  if (watch) run('build', 'pnpm', ['exec', 'turbo', 'watch', 'build'], { ...env, NODE_OPTIONS: process.env.NODE_OPTIONS ?? '' }, 90);
  const gateway = new URL(base);
  const readyUrl = `http://127.0.0.1:${process.env.GATEWAY_PORT ?? gateway.port ?? 8080}/readyz`;
  if (await waitReady(readyUrl)) {
    log(`\x1b[32mMerch-Shop Agent API ready at ${base}\x1b[0m  (try: curl '${base}/v1/products?q=hoodie')`);
    if (!process.env.SMTP_URL) log(`e-mails are written to ${env.OUTBOX_DIR} (set SMTP_URL to send them)`);
  } else if (!stopping) {
    log(`the gateway did not become ready at ${readyUrl}; see the logs above`);
  }
}

main().catch((err) => {
  log(`\x1b[31m${err instanceof Error ? err.message : String(err)}\x1b[0m`);
  void stop(1);
});
