// Starts the whole system from its images on one podman (or docker) network
// of its own, configured as docker-compose.yml configures it: each service's
// image, environment (interpolated with fresh secrets), read-only root,
// tmpfs /tmp, every capability dropped, replicas and published ports, in the
// order its depends_on gives. The compose file's redis and mailpit images
// cannot be pulled where no registry answers, so they are stood in for:
// Redis is Debian's redis-server built on the services' base (redis.Dockerfile)
// with infra/redis.conf mounted, the mail sink is sink.mjs (aliases mailpit
// and logos). Only the ports compose publishes are published, on 127.0.0.1.
//
// Names are resolved from each container's hosts file, not by the engine's
// DNS: aardvark-dns (1.4, Debian's) drops queries while it reloads on every
// container start and stop (containers/aardvark-dns#389), which stalled
// lookups for 15-40 s whenever the test restarted a container. Every
// container gets a fixed address on the network and an entry for each
// compose name and container name, so a name means the same as under compose.
// The address keeps its MAC across a restart (macOf), as under Docker.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as images from '../../../scripts/images.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = images.root as string;
const engine = images.engine as string;
const YAML = createRequire(join(here, '..', 'package.json'))('yaml') as typeof import('yaml');

type ComposeService = {
  image?: string;
  command?: string[];
  build?: { dockerfile?: string; args?: Record<string, string | number> };
  environment?: Record<string, string | number>;
  ports?: string[];
  depends_on?: Record<string, unknown> | string[];
  deploy?: { replicas?: number };
  profiles?: string[];
};

export type Container = { name: string; service: string; image: string; ports: { name: string; port: number }[] };

export type ComposeSystem = {
  network: string;
  subnet: string;
  baseUrl: string;
  gatewayHostPort: number;
  containers: Container[];
  /** The containers of one compose service (replicas in order). */
  of(service: string): Container[];
  redis: Container;
  sink: Container;
  mailDir: string;
  engine(args: string[], opts?: { allowFail?: boolean }): string;
  mails(): { rcptTo: string[]; raw: string }[];
  close(): void;
};

export function engineRun(args: string[], { allowFail = false } = {}): string {
  const result = spawnSync(engine, args, { encoding: 'utf8', maxBuffer: 64 * 1_000_000 });
  if (result.status !== 0 && !allowFail) {
    throw new Error(`${engine} ${args.join(' ').slice(0, 200)} failed: ${(result.stderr || result.error?.message || '').trim().split('\n').slice(-5).join(' | ')}`);
  }
  return result.status === 0 ? result.stdout : '';
}

function composeFile(): Record<string, ComposeService> {
  return YAML.parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }).services;
}

function nodeBase(): string {
  return `docker.io/library/${images.nodeBase() as string}`;
}

/**
 * Builds the seven service images as `pnpm images` does (the build cache
 * makes an unchanged one quick) and the Redis stand-in. IMAGES_TEST_BUILD=0
 * reuses the images present instead.
 */
export function buildImages(log: (line: string) => void): void {
  const base = nodeBase();
  images.ensureBase(images.nodeBase());
  const reuse = process.env.IMAGES_TEST_BUILD === '0';
  for (const service of images.composeServices() as { name: string; image: string; args: Record<string, string> }[]) {
    if (reuse && images.inspectImage(service.image)) continue;
    const seconds = images.build(service, images.buildArgsOf(service)) as number;
    log(`${service.image}: built in ${seconds.toFixed(0)} s`);
  }
  if (!(reuse && images.inspectImage(REDIS_IMAGE))) {
    engineRun(['build', '--network', 'host', ...(engine === 'podman' ? ['--format', 'docker', '--pull=never'] : []), '--build-arg', `BASE=${base}`, '-t', REDIS_IMAGE, '-f', join(here, 'redis.Dockerfile'), here]);
  }
}

const REDIS_IMAGE = 'localhost/msa-system-test-redis';
// The official image is built with protected mode off (the network is its
// boundary); Debian's binary defaults to on and would refuse the services.
const REDIS_IMAGE_DEFAULTS = ['--protected-mode', 'no'];

function hardened(): string[] {
  return ['--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges'];
}

/**
 * A network of the run's own on the first free 10.89.N.0/24 (the engine
 * refuses a subnet in use), without the engine's DNS: see the top of the file.
 */
function createNetwork(network: string): string {
  const first = randomInt(0, 150);
  for (let i = 0; i < 150; i++) {
    const subnet = `10.89.${100 + ((first + i) % 150)}.0/24`;
    const created = engineRun(['network', 'create', ...(engine === 'podman' ? ['--disable-dns'] : []), '--subnet', subnet, network], { allowFail: true });
    if (created) return subnet;
  }
  throw new Error('no free 10.89.N.0/24 for the test network');
}

/** Address i of a /24, from .10 on (.1 is the gateway). */
function addressOf(subnet: string, i: number): string {
  return subnet.replace(/\.0\/24$/, `.${10 + i}`);
}

/**
 * `02:42:` and the address in hex, as Docker derives a container's MAC. The
 * engine otherwise draws a new one at each start, and a peer that still
 * holds the old one in its neighbour cache sends into the void until the
 * entry expires (27 s measured) after a restart.
 */
function macOf(ip: string): string {
  return ['02', '42', ...ip.split('.').map((octet) => Number(octet).toString(16).padStart(2, '0'))].join(':');
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The compose healthcheck of a service, run inside its container. */
function healthy(container: string, test: string[]): boolean {
  return spawnSync(engine, ['exec', container, ...test.slice(1)], { encoding: 'utf8' }).status === 0;
}

/** Every port the services listen on: their config's *_PORT defaults. */
export function declaredServicePorts(): number[] {
  const ports = (images.composeServices() as { args: Record<string, string> }[]).flatMap((s) => (images.portVariables(s.args.APP) as { port: number }[]).map((p) => p.port));
  return [...new Set(ports)];
}

/** A restart that runs while the caller goes on; resolves with the engine's exit code. */
export function restartInBackground(containers: string[], graceSeconds: number): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(engine, ['restart', '--time', String(graceSeconds), ...containers], { stdio: 'ignore' });
    child.on('close', resolve);
  });
}

export async function startComposeSystem(opts: { extraEnv?: (subnet: string) => Record<string, Record<string, string>> } = {}): Promise<ComposeSystem> {
  const runId = randomBytes(3).toString('hex');
  const network = `msa-system-${runId}`;
  const prefix = `msa-system-${runId}`;
  const containers: Container[] = [];
  const mailDir = mkdtempSync(join(tmpdir(), 'msa-system-mail-'));
  // The sink runs as the image's user node.
  chmodSync(mailDir, 0o777);
  const close = () => {
    // Each container's log, for the run that just ended.
    const logs = join(root, '.data', 'images', 'system');
    mkdirSync(logs, { recursive: true });
    for (const c of containers) {
      const out = spawnSync(engine, ['logs', c.name], { encoding: 'utf8', maxBuffer: 64 * 1_000_000 });
      writeFileSync(join(logs, `${c.name.slice(prefix.length + 1)}.log`), `${out.stdout ?? ''}${out.stderr ?? ''}`);
    }
    for (const c of [...containers].reverse()) engineRun(['rm', '-f', '-t', '0', c.name], { allowFail: true });
    engineRun(['network', 'rm', '-f', network], { allowFail: true });
    engineRun(['volume', 'rm', '-f', `${prefix}-redis-data`], { allowFail: true });
    rmSync(mailDir, { recursive: true, force: true });
  };
  try {
    const subnet = createNetwork(network);
    const services = composeFile();
    const secrets = images.runSecrets() as Record<string, string>;
    const extraEnv = opts.extraEnv?.(subnet) ?? {};
    const built = (images.composeServices() as { name: string }[]).map((s) => s.name);

    // Every container's name and address before any starts, so each one's hosts file names them all.
    const replicaNames = Object.fromEntries(
      built.map((name) => {
        const replicas = services[name]!.deploy?.replicas ?? 1;
        return [name, Array.from({ length: replicas }, (_, i) => (replicas > 1 ? `${prefix}-${name}-${i + 1}` : `${prefix}-${name}`))];
      }),
    );
    const planned: { name: string; aliases: string[] }[] = [
      { name: `${prefix}-redis`, aliases: ['redis'] },
      { name: `${prefix}-sink`, aliases: ['mailpit', 'logos'] },
      ...built.flatMap((name) => replicaNames[name]!.map((container, i) => ({ name: container, aliases: i === 0 ? [name] : [] }))),
    ];
    const address = new Map(planned.map((c, i) => [c.name, addressOf(subnet, i)]));
    const hostEntries = planned.flatMap((c) => [c.name, ...c.aliases].flatMap((host) => ['--add-host', `${host}:${address.get(c.name)}`]));
    const attach = (container: string) => ['--network', network, '--ip', address.get(container)!, '--mac-address', macOf(address.get(container)!), ...hostEntries];

    const redis: Container = { name: `${prefix}-redis`, service: 'redis', image: REDIS_IMAGE, ports: [{ name: 'redis', port: 6379 }] };
    engineRun(['run', '-d', '--name', redis.name, ...attach(redis.name), ...hardened(), '-v', `${prefix}-redis-data:/data`, '-v', `${join(root, 'infra', 'redis.conf')}:/usr/local/etc/redis/redis.conf:ro`, REDIS_IMAGE, ...(services.redis?.command ?? []), ...REDIS_IMAGE_DEFAULTS]);
    containers.push(redis);

    const smtpServer = dirname(createRequire(join(root, 'packages', 'test-kit', 'package.json')).resolve('smtp-server/package.json'));
    const store = join(root, 'node_modules', '.pnpm');
    const sink: Container = { name: `${prefix}-sink`, service: 'mailpit', image: nodeBase(), ports: [{ name: 'smtp', port: 1025 }, { name: 'http', port: 8000 }] };
    engineRun(['run', '-d', '--name', sink.name, ...attach(sink.name), ...hardened(), '--user', 'node', '-v', `${store}:${store}:ro`, '-v', `${join(here, 'sink.mjs')}:/sink.mjs:ro`, '-v', `${mailDir}:/mail`, '-e', `SMTP_SERVER_MODULE=${smtpServer}`, nodeBase(), 'node', '/sink.mjs']);
    containers.push(sink);
    await waitFor('Redis', () => healthy(redis.name, ['CMD', 'redis-cli', 'ping']));

    const pending = new Set(built);
    const up = new Set(['redis', 'mailpit']);
    let gatewayHostPort = 0;
    while (pending.size) {
      const wave = [...pending].filter((name) => {
        const deps = services[name]!.depends_on ?? [];
        return (Array.isArray(deps) ? deps : Object.keys(deps)).every((d) => up.has(d));
      });
      if (!wave.length) throw new Error(`depends_on cannot be met: ${[...pending].join(', ')}`);
      const starting: { name: string; container: string }[] = [];
      for (const name of wave) {
        const service = services[name]!;
        const env = Object.entries({ ...service.environment, ...extraEnv[name] }).map(([k, v]) => `${k}=${images.interpolate(v, secrets)}`);
        const publish: string[] = [];
        for (const mapping of service.ports ?? []) {
          const containerPort = mapping.split(':').at(-1)!;
          gatewayHostPort = (await images.freePort()) as number;
          publish.push('-p', `127.0.0.1:${gatewayHostPort}:${containerPort}`);
        }
        const app = String(service.build!.args!.APP);
        for (const containerName of replicaNames[name]!) {
          const container: Container = {
            name: containerName,
            service: name,
            image: service.image!,
            ports: images.portVariables(app) as { name: string; port: number }[],
          };
          engineRun(['run', '-d', '--name', container.name, ...attach(container.name), ...hardened(), '--stop-timeout', '15', ...publish, ...env.flatMap((e) => ['-e', e]), container.image]);
          containers.push(container);
          starting.push({ name, container: container.name });
        }
      }
      for (const { name, container } of starting) {
        await waitFor(`${container} healthy`, () => healthy(container, (services[name] as { healthcheck?: { test: string[] } }).healthcheck!.test));
      }
      for (const name of wave) {
        pending.delete(name);
        up.add(name);
      }
    }

    // Healthy is alive; traffic waits until each one is ready (its Redis, its neighbours).
    for (const c of containers.filter((c) => built.includes(c.service))) {
      const test = (services[c.service] as { healthcheck?: { test: string[] } }).healthcheck!.test.map((part) => part.replace('/healthz', '/readyz'));
      await waitFor(`${c.name} ready`, () => healthy(c.name, test));
    }

    const of = (service: string) => containers.filter((c) => c.service === service);
    return {
      network,
      subnet,
      baseUrl: `http://127.0.0.1:${gatewayHostPort}`,
      gatewayHostPort,
      containers,
      of,
      redis,
      sink,
      mailDir,
      engine: engineRun,
      mails: () =>
        readdirSync(mailDir)
          .filter((f) => f.endsWith('.json'))
          .map((f) => JSON.parse(readFileSync(join(mailDir, f), 'utf8'))),
      close,
    };
  } catch (err) {
    close();
    throw err;
  }
}
