// One service as the operator runs it: `node apps/<name>/dist/main.js` in a
// child process with only the environment given here, so SIGKILL is a real
// crash (no shutdown code runs) and a restart reads its configuration anew.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drillConfig } from './config.js';
import { LineLog } from './line-log.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export type ServiceName = 'catalog' | 'shops' | 'identity' | 'requests' | 'mcp' | 'intake-worker' | 'gateway';

export interface ServiceProcess {
  name: ServiceName;
  port: number;
  url: string;
  log: LineLog;
  isRunning(): boolean;
  /** The process id while it runs. */
  pid(): number | undefined;
  /** Exits since `at` that no drill caused (anything but SIGKILL): a crash, or something outside stopping it. */
  unexpectedExits(at: number): string[];
  /** Starts the process and waits until `readyPath` answers 200. */
  start(): Promise<void>;
  /** SIGKILL, then waits for the exit. */
  kill(): Promise<void>;
  /** A crash and a fresh start on the same port: SIGKILL, `downMs` without the service, start. */
  restart(downMs?: number): Promise<void>;
}

export interface ServiceOptions {
  name: ServiceName;
  /** Names the process in logs when a service runs more than once: `gateway#2`. */
  label?: string;
  port: number;
  env: Record<string, string>;
  /** `/readyz` checks the service's own dependencies; the gateway's would ask every upstream. */
  readyPath?: string;
  /** The checkout whose build runs (default this one); another release's worktree for a compatibility drill. */
  root?: string;
}

const READY_TIMEOUT_MS = 20_000;

export function createServiceProcess({ name, label = name, port, env, readyPath = '/readyz', root = REPO_ROOT }: ServiceOptions): ServiceProcess {
  const main = path.join(root, 'apps', name, 'dist', 'main.js');
  const url = `http://127.0.0.1:${port}`;
  const log = new LineLog(label);
  let child: ChildProcess | undefined;
  const exits: { at: number; how: string }[] = [];

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  async function start() {
    if (running()) return;
    if (!existsSync(main)) throw new Error(`${main} is missing: run \`pnpm build\` first`);
    const proc = spawn(process.execPath, [main], {
      cwd: root,
      env: { PATH: drillConfig.path, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    log.attach(proc);
    proc.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') exits.push({ at: Date.now(), how: signal ?? `code ${code}` });
    });
    const exited = new Promise<never>((_, reject) =>
      proc.once('exit', (code, signal) =>
        reject(new Error(`${label} exited (${signal ?? `code ${code}`}) before it was ready:\n${log.tail(30)}`)),
      ),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForOk(`${url}${readyPath}`, READY_TIMEOUT_MS, label), exited]);
  }

  async function kill() {
    const proc = child;
    if (!proc || !running()) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  return {
    name,
    port,
    url,
    log,
    isRunning: running,
    pid: () => (running() ? child?.pid : undefined),
    unexpectedExits: (at) => exits.filter((e) => e.at >= at).map((e) => `${label} exited on its own (${e.how})`),
    start,
    kill,
    async restart(downMs = 0) {
      await kill();
      await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
  };
}

async function waitForOk(url: string, timeoutMs: number, name: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `status ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not ready at ${url} within ${timeoutMs} ms (${last})`);
}
