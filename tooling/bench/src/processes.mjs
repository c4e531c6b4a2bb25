// Starts services as the real processes a deployment runs
// (`node apps/<app>/dist/main.js`), each with an environment built here from
// an allowlist, so nothing from the caller's shell (a collector endpoint, a
// different key prefix) changes what is measured.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// NODE_OPTIONS is not inherited: the services get the flags they are deployed
// with (settings.nodeOptions), so a shell's NODE_OPTIONS cannot skew a run.
const INHERITED = ['MALLOC_ARENA_MAX', 'PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'];
const MODULE_COUNT_PRELOAD = fileURLToPath(new URL('./module-count.mjs', import.meta.url));

/** A port nothing listens on right now (loopback only). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export function mainOf(root, app) {
  return join(root, 'apps', app, 'dist', 'main.js');
}

/**
 * Spawns one service. Its output is kept (last lines only) so a process that
 * dies early can say why; with LOG_LEVEL=warn a healthy one prints little.
 */
export function spawnService(root, { name, app, script, args = [], env, nodeArgs = [], nodeOptions = '' }) {
  const main = script ?? mainOf(root, app);
  if (!existsSync(main)) throw new Error(`${main} is missing; run pnpm build`);
  const base = Object.fromEntries(INHERITED.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  const child = spawn(process.execPath, [...nodeArgs, main, ...args], {
    cwd: root,
    env: { ...base, ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail = [];
  const keep = (chunk) => {
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      tail.push(line);
      if (tail.length > 30) tail.shift();
    }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    name,
    pid: child.pid,
    child,
    exited,
    output: () => tail.join('\n'),
    get running() {
      return child.exitCode === null && child.signalCode === null;
    },
    /** SIGTERM (graceful shutdown), SIGKILL if it is still there after `graceMs`. */
    async stop(graceMs = 5_000) {
      if (!this.running) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** Polls `url` until it answers 2xx; fails early when `service` exits. */
export async function waitForOk(url, service, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service && !service.running) {
      throw new Error(`${service.name} exited before ${url} answered:\n${service.output()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`${url} did not answer 2xx within ${timeoutMs} ms${service ? `:\n${service.output()}` : ''}`);
}

/**
 * Starts `app` once more, alone, with the module-counting preload
 * (module-count.mjs), waits until `readyUrl` answers, and answers how many
 * modules it loaded to get there ({ modules, byPackage }). Runs before the
 * measured start, on the same ports and environment.
 */
export async function countModules(root, { name, app, env, nodeOptions, readyUrl }) {
  const file = join(tmpdir(), `msa-bench-modules-${process.pid}-${name}.json`);
  rmSync(file, { force: true });
  const service = spawnService(root, {
    name: `${name} (module count)`,
    app,
    env: { ...env, BENCH_MODULE_COUNT_FILE: file },
    nodeOptions,
    nodeArgs: ['--import', MODULE_COUNT_PRELOAD],
  });
  try {
    await waitForOk(readyUrl, service);
    service.child.kill('SIGUSR2');
    const deadline = Date.now() + 5_000;
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new Error(`${name} wrote no module count:\n${service.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 50));
    return JSON.parse(readFileSync(file, 'utf8'));
  } finally {
    await service.stop();
    rmSync(file, { force: true });
  }
}
