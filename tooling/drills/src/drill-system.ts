// The whole system as separate processes on loopback: its own Redis (one
// redis-server, a Cluster or a Sentinel setup), every service from its
// dist/main.js (one or more instances each), the SMTP sink in this process. The
// intervals that decide how fast the system recovers are shortened through
// the services' own environment variables, never through test code paths.
import { startSmtpSink, TEST_INTERNAL_SECRET, testEcKeyPair, type SmtpSink } from '@msa/test-kit';
import { Cluster, Redis } from 'ioredis';
export { freePort } from './ports.js';
import { freePort, freePorts } from './ports.js';
import { startRedisCluster, type RedisCluster } from './redis-cluster.js';
import { startRedisProcess, type RedisProcess } from './redis-process.js';
import { startRedisSentinel, type RedisSentinelSetup } from './redis-sentinel.js';
import { createServiceProcess, type ServiceName, type ServiceProcess } from './service-process.js';

export type RedisClient = Redis | Cluster;

export const OPERATOR_EMAIL = 'operator@merch.test';
export const KEY_PREFIX = 'drill:';

/** Recovery settings of the drills, shortened through configuration only. */
export const RECOVERY_ENV = {
  requests: {
    RECONCILE_INTERVAL_MS: '500',
    RECONCILE_MIN_AGE_MS: '1000',
    IDEMPOTENCY_LOCK_SECONDS: '5',
    INTAKE_BACKOFF_MS: '200',
  },
  identity: { IDEMPOTENCY_LOCK_SECONDS: '5' },
  // A worker that paused itself on Redis errors checks again within 2 s, well inside the delivery deadline.
  'intake-worker': { INTAKE_LOCK_DURATION_MS: '2000', INTAKE_STALLED_INTERVAL_MS: '1000', INTAKE_REDIS_BACKOFF_MS: '250', INTAKE_REDIS_BACKOFF_MAX_MS: '2000' },
} as const;

/**
 * On the topologies with replicas (Cluster, Sentinel) a write is confirmed
 * on one replica before the request it belongs to is answered 201 and
 * before a delivery's job completes, as production runs them.
 */
export const REPLICATED_ENV = { REDIS_WAIT_REPLICAS: '1', REDIS_WAIT_TIMEOUT_MS: '1000' } as const;

/** Start order: each service after the ones it calls. */
const START_ORDER: ServiceName[][] = [['catalog', 'shops', 'identity'], ['requests'], ['mcp', 'intake-worker'], ['gateway']];

export type Topology = 'single' | 'cluster' | 'sentinel';

/** The Redis processes of a drill system, by topology. */
export type RedisServers =
  | { kind: 'single'; server: RedisProcess }
  | { kind: 'cluster'; cluster: RedisCluster }
  | { kind: 'sentinel'; sentinel: RedisSentinelSetup };

export interface DrillSystemOptions {
  /** One redis-server (default), a 3+3 Cluster, or a master and replica watched by 3 Sentinels. */
  topology?: Topology;
  /**
   * Processes of one service (default 1 each). Gateway i calls requests
   * service i (modulo their count); the others call the first instance.
   */
  instances?: Partial<Record<ServiceName, number>>;
  /** Variables added to a service's environment (every instance), e.g. a small RATE_LIMIT_PER_MINUTE. */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
  /** BullMQ prefix of the requests services and workers (default `{drill:intake}`). */
  queuePrefix?: string;
  /** Services that run from another checkout (a previous release's worktree) instead of this one. */
  roots?: Partial<Record<ServiceName, ServiceRoot>>;
}

/** A checkout a service runs from; `name` goes into its log label: `requests@1.0.0`. */
export interface ServiceRoot {
  name: string;
  dir: string;
}

export interface DrillSystem {
  /** The first gateway. */
  baseUrl: string;
  /** Every gateway, in instance order. */
  gatewayUrls: string[];
  topology: Topology;
  redisServers: RedisServers;
  /** A connection for the checks, of the system's topology; it follows restarts and failovers. */
  redis: RedisClient;
  /** The BullMQ prefix the services use. */
  queuePrefix: string;
  smtp: SmtpSink;
  /** The first instance of each service. */
  services: Record<ServiceName, ServiceProcess>;
  /** Every instance of one service. */
  instances(name: ServiceName): ServiceProcess[];
  /** The environment instance 0 of `name` runs with, for starting a variant of it by hand. */
  envOf(name: ServiceName): Record<string, string>;
  /** Restarts whatever a drill left stopped (a drill that failed half way). */
  ensureRunning(): Promise<void>;
  /** Every process's output since `at`, for a failed drill. */
  logsSince(at: number): string;
  /** Services that exited since `at` without a drill killing them. */
  unexpectedExits(at: number): string[];
  /** `requests 12, gateway 3`: output lines per service since `at` (warn and up). */
  logCounts(at: number): string;
  close(): Promise<void>;
}

/** The single redis-server of a system; faults that restart Redis or watch its keyspace need one. */
export function singleRedis(system: DrillSystem): RedisProcess {
  if (system.redisServers.kind !== 'single') throw new Error(`this fault needs a single redis-server, the system runs ${system.redisServers.kind}`);
  return system.redisServers.server;
}

async function startRedisServers(topology: Topology): Promise<RedisServers> {
  switch (topology) {
    case 'single':
      return { kind: 'single', server: await startRedisProcess(await freePort()) };
    case 'cluster':
      return { kind: 'cluster', cluster: await startRedisCluster() };
    case 'sentinel':
      return { kind: 'sentinel', sentinel: await startRedisSentinel() };
  }
}

function redisProcessesOf(servers: RedisServers): RedisProcess[] {
  switch (servers.kind) {
    case 'single':
      return [servers.server];
    case 'cluster':
      return servers.cluster.nodes;
    case 'sentinel':
      return [...servers.sentinel.dataNodes, ...servers.sentinel.sentinels];
  }
}

/** What the services' Redis variables say for each topology. */
function redisEnvOf(servers: RedisServers): Record<string, string> {
  switch (servers.kind) {
    case 'single':
      return { REDIS_URL: servers.server.url };
    case 'cluster':
      return { REDIS_CLUSTER_NODES: servers.cluster.seeds };
    case 'sentinel':
      return { REDIS_SENTINELS: servers.sentinel.sentinelSeeds, REDIS_SENTINEL_NAME: servers.sentinel.name };
  }
}

function checkClientOf(servers: RedisServers): RedisClient {
  const options = { maxRetriesPerRequest: 20, lazyConnect: true };
  let client: RedisClient;
  switch (servers.kind) {
    case 'single':
      client = new Redis(servers.server.url, options);
      break;
    case 'cluster':
      client = new Cluster(
        servers.cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
        { lazyConnect: true, redisOptions: { maxRetriesPerRequest: 20 }, retryDelayOnFailover: 200, retryDelayOnClusterDown: 300 },
      );
      break;
    case 'sentinel':
      client = new Redis({
        ...options,
        sentinels: servers.sentinel.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
        name: servers.sentinel.name,
      });
      break;
  }
  client.on('error', () => undefined);
  if (client instanceof Cluster) client.on('node error', () => undefined);
  return client;
}

export async function startDrillSystem(options: DrillSystemOptions = {}): Promise<DrillSystem> {
  const topology = options.topology ?? 'single';
  const queuePrefix = options.queuePrefix ?? '{drill:intake}';
  // Redis first: a Cluster node also listens on its port + 10000, which the services' ports must not take.
  const redisServers = await startRedisServers(topology);
  const redisProcesses = redisProcessesOf(redisServers);
  const stopRedis = () => Promise.all(redisProcesses.map((p) => p.stop()));
  const count = (name: ServiceName) => Math.max(1, options.instances?.[name] ?? 1);
  const names = START_ORDER.flat();
  const pool = await freePorts(names.reduce((n, name) => n + count(name), 0) + count('gateway') + 1);
  const ports = Object.fromEntries(names.map((name) => [name, pool.splice(0, count(name))])) as Record<ServiceName, number[]>;
  const gatewayAdminPorts = pool.splice(0, count('gateway'));
  const smtpPort = pool.pop()!;
  const gatewayUrls = ports.gateway.map((p) => `http://127.0.0.1:${p}`);
  const baseUrl = gatewayUrls[0]!;
  const url = (name: ServiceName, i = 0) => `http://127.0.0.1:${ports[name][i % ports[name].length]}`;

  let smtp: SmtpSink;
  try {
    // Under a burst the drills read only envelopes and headers: mailparser's HTML and text conversions are skipped.
    smtp = await startSmtpSink({
      port: smtpPort,
      closeTimeoutMs: 500,
      parserOptions: { skipHtmlToText: true, skipTextToHtml: true, skipTextLinks: true },
    });
  } catch (err) {
    await stopRedis();
    throw err;
  }
  const keys = testEcKeyPair();
  const common = {
    NODE_ENV: 'test',
    // warn and up: what an operator would be paged for, printed when a drill fails.
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: baseUrl,
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    ...redisEnvOf(redisServers),
    REDIS_KEY_PREFIX: KEY_PREFIX,
    QUEUE_PREFIX: queuePrefix,
    SHUTDOWN_DEADLINE_MS: '3000',
    BIND_ADDRESS: '127.0.0.1',
  };
  const replicated = topology === 'single' ? {} : REPLICATED_ENV;
  const envOf = (name: ServiceName, i: number): Record<string, string> => {
    const own = options.env?.[name] ?? {};
    switch (name) {
      case 'catalog':
        return { ...common, CATALOG_PORT: String(ports.catalog[i]), CATALOG_ADMIN_PORT: '0', ...own };
      case 'shops':
        return { ...common, SHOPS_PORT: String(ports.shops[i]), SHOPS_ADMIN_PORT: '0', ...own };
      case 'identity':
        return {
          ...common,
          IDENTITY_PORT: String(ports.identity[i]),
          IDENTITY_ADMIN_PORT: '0',
          TOKEN_SIGNING_KEY: keys.privateKeyPem,
          TOKEN_SIGNING_KID: 'drill-key-1',
          ...RECOVERY_ENV.identity,
          ...own,
        };
      case 'requests':
        return {
          ...common,
          REQUESTS_PORT: String(ports.requests[i]),
          REQUESTS_ADMIN_PORT: '0',
          CATALOG_URL: url('catalog'),
          ...RECOVERY_ENV.requests,
          ...replicated,
          ...own,
        };
      case 'mcp':
        return {
          ...common,
          MCP_PORT: String(ports.mcp[i]),
          MCP_ADMIN_PORT: '0',
          CATALOG_URL: url('catalog'),
          SHOPS_URL: url('shops'),
          REQUESTS_URL: url('requests'),
          ...own,
        };
      case 'intake-worker':
        return {
          ...common,
          WORKER_PORT: String(ports['intake-worker'][i]),
          SMTP_URL: smtp.url,
          OPERATOR_EMAIL,
          MAIL_FROM: 'Merch-Shop Anfragen <anfragen@merch.test>',
          LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'true',
          ...RECOVERY_ENV['intake-worker'],
          ...replicated,
          ...own,
        };
      case 'gateway':
        return {
          ...common,
          GATEWAY_PORT: String(ports.gateway[i]),
          GATEWAY_ADMIN_PORT: String(gatewayAdminPorts[i]),
          CATALOG_URL: url('catalog'),
          SHOPS_URL: url('shops'),
          REQUESTS_URL: url('requests', i),
          IDENTITY_URL: url('identity'),
          MCP_URL: url('mcp'),
          // The drills act as many clients, each with its own X-Forwarded-For.
          TRUST_PROXY: 'true',
          ...own,
        };
    }
  };
  const instancesOf = Object.fromEntries(
    START_ORDER.flat().map((name) => [
      name,
      ports[name].map((port, i) =>
        createServiceProcess({
          name,
          label: `${count(name) > 1 ? `${name}#${i + 1}` : name}${options.roots?.[name] ? `@${options.roots[name].name}` : ''}`,
          root: options.roots?.[name]?.dir,
          port,
          env: envOf(name, i),
          readyPath: name === 'gateway' ? '/healthz' : '/readyz',
        }),
      ),
    ]),
  ) as Record<ServiceName, ServiceProcess[]>;
  const all = () => Object.values(instancesOf).flat();
  const services = Object.fromEntries(Object.entries(instancesOf).map(([name, list]) => [name, list[0]!])) as Record<ServiceName, ServiceProcess>;
  const startAll = async () => {
    for (const group of START_ORDER) await Promise.all(group.flatMap((name) => instancesOf[name].map((s) => s.start())));
  };

  const redis = checkClientOf(redisServers);

  // A test process that dies must not leave services or Redis running on the machine.
  const killOnExit = () => {
    for (const service of all()) void service.kill();
    for (const p of redisProcesses) void p.kill();
  };
  process.once('exit', killOnExit);

  try {
    await redis.connect();
    await startAll();
  } catch (err) {
    process.off('exit', killOnExit);
    await Promise.all(all().map((s) => s.kill()));
    redis.disconnect();
    await smtp.close();
    await stopRedis();
    throw err;
  }

  return {
    baseUrl,
    gatewayUrls,
    topology,
    redisServers,
    redis,
    queuePrefix,
    smtp,
    services,
    instances: (name) => instancesOf[name],
    envOf: (name) => envOf(name, 0),
    async ensureRunning() {
      if (redisServers.kind === 'cluster') {
        const { cluster } = redisServers;
        for (const n of cluster.nodes) if (n.pid() === undefined) await cluster.restart(n.port);
      } else {
        await Promise.all(redisProcesses.map((p) => p.start()));
      }
      await smtp.bringBack();
      await startAll();
    },
    logsSince(at) {
      const logs = [...redisProcesses.map((p) => p.log), ...all().map((s) => s.log)];
      return logs
        .flatMap((l) => l.since(at))
        .sort((a, b) => a.at - b.at)
        .slice(-400)
        .map((l) => l.text)
        .join('\n');
    },
    unexpectedExits(at) {
      return all().flatMap((s) => s.unexpectedExits(at));
    },
    logCounts(at) {
      const counts = all()
        .map((s) => [s.log.name, s.log.since(at).length] as const)
        .filter(([, n]) => n > 0);
      return counts.map(([name, n]) => `${name} ${n}`).join(', ') || 'none';
    },
    async close() {
      // A file that starts many systems one after another keeps one listener at a time.
      process.off('exit', killOnExit);
      redis.disconnect();
      await Promise.all(all().map((s) => s.kill()));
      await smtp.close();
      await stopRedis();
    },
  };
}
