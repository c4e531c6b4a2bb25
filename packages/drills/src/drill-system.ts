// The whole system as separate processes on loopback: its own redis-server,
// every service from its dist/main.js, the SMTP sink in this process. The
// intervals that decide how fast the system recovers are shortened through
// the services' own environment variables, never through test code paths.
import { TEST_INTERNAL_SECRET, testEcKeyPair } from '@msa/test-kit';
import { Redis } from 'ioredis';
export { freePort } from './ports.js';
import { freePort } from './ports.js';
import { startRedisProcess, type RedisProcess } from './redis-process.js';
import { createServiceProcess, type ServiceName, type ServiceProcess } from './service-process.js';
import { startSmtpSink, type SmtpSink } from './smtp-sink.js';

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
  'intake-worker': { INTAKE_LOCK_DURATION_MS: '2000', INTAKE_STALLED_INTERVAL_MS: '1000' },
} as const;

/** Start order: each service after the ones it calls. */
const START_ORDER: ServiceName[][] = [['catalog', 'shops', 'identity'], ['requests'], ['mcp', 'intake-worker'], ['gateway']];

export interface DrillSystem {
  baseUrl: string;
  redisProcess: RedisProcess;
  /** A connection for the checks; it reconnects after a Redis restart. */
  redis: Redis;
  smtp: SmtpSink;
  services: Record<ServiceName, ServiceProcess>;
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

export async function startDrillSystem(): Promise<DrillSystem> {
  const ports = {
    redis: await freePort(),
    smtp: await freePort(),
    catalog: await freePort(),
    shops: await freePort(),
    identity: await freePort(),
    requests: await freePort(),
    mcp: await freePort(),
    'intake-worker': await freePort(),
    gateway: await freePort(),
    gatewayAdmin: await freePort(),
  };
  const baseUrl = `http://127.0.0.1:${ports.gateway}`;
  const url = (name: ServiceName) => `http://127.0.0.1:${ports[name]}`;

  const redisProcess = await startRedisProcess(ports.redis);
  const smtp = await startSmtpSink(ports.smtp);
  const keys = testEcKeyPair();
  const common = {
    NODE_ENV: 'test',
    // warn and up: what an operator would be paged for, printed when a drill fails.
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: baseUrl,
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    REDIS_URL: redisProcess.url,
    REDIS_KEY_PREFIX: KEY_PREFIX,
    QUEUE_PREFIX: '{drill:intake}',
    SHUTDOWN_DEADLINE_MS: '3000',
    BIND_ADDRESS: '127.0.0.1',
  };
  const envOf: Record<ServiceName, Record<string, string>> = {
    catalog: { ...common, CATALOG_PORT: String(ports.catalog), CATALOG_ADMIN_PORT: '0' },
    shops: { ...common, SHOPS_PORT: String(ports.shops), SHOPS_ADMIN_PORT: '0' },
    identity: {
      ...common,
      IDENTITY_PORT: String(ports.identity),
      IDENTITY_ADMIN_PORT: '0',
      TOKEN_SIGNING_KEY: keys.privateKeyPem,
      TOKEN_SIGNING_KID: 'drill-key-1',
      ...RECOVERY_ENV.identity,
    },
    requests: { ...common, REQUESTS_PORT: String(ports.requests), REQUESTS_ADMIN_PORT: '0', CATALOG_URL: url('catalog'), ...RECOVERY_ENV.requests },
    mcp: {
      ...common,
      MCP_PORT: String(ports.mcp),
      MCP_ADMIN_PORT: '0',
      CATALOG_URL: url('catalog'),
      SHOPS_URL: url('shops'),
      REQUESTS_URL: url('requests'),
    },
    'intake-worker': {
      ...common,
      WORKER_PORT: String(ports['intake-worker']),
      SMTP_URL: smtp.url,
      OPERATOR_EMAIL,
      MAIL_FROM: 'Merch-Shop Anfragen <anfragen@merch.test>',
      LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'true',
      ...RECOVERY_ENV['intake-worker'],
    },
    gateway: {
      ...common,
      GATEWAY_PORT: String(ports.gateway),
      GATEWAY_ADMIN_PORT: String(ports.gatewayAdmin),
      CATALOG_URL: url('catalog'),
      SHOPS_URL: url('shops'),
      REQUESTS_URL: url('requests'),
      IDENTITY_URL: url('identity'),
      MCP_URL: url('mcp'),
      // The drills act as many clients, each with its own X-Forwarded-For.
      TRUST_PROXY: 'true',
    },
  };
  const services = Object.fromEntries(
    START_ORDER.flat().map((name) => [
      name,
      createServiceProcess({ name, port: ports[name], env: envOf[name], readyPath: name === 'gateway' ? '/healthz' : '/readyz' }),
    ]),
  ) as Record<ServiceName, ServiceProcess>;

  const redis = new Redis(redisProcess.url, { maxRetriesPerRequest: 20, lazyConnect: true });
  redis.on('error', () => undefined);

  const killAll = () => {
    for (const service of Object.values(services)) void service.kill();
  };
  // A test process that dies must not leave services running on the machine.
  process.once('exit', () => {
    for (const service of Object.values(services)) void service.kill();
    void redisProcess.kill();
  });

  try {
    await redis.connect();
    for (const group of START_ORDER) await Promise.all(group.map((name) => services[name].start()));
  } catch (err) {
    killAll();
    redis.disconnect();
    await smtp.close();
    await redisProcess.stop();
    throw err;
  }

  return {
    baseUrl,
    redisProcess,
    redis,
    smtp,
    services,
    async ensureRunning() {
      await redisProcess.start();
      await smtp.bringBack();
      for (const group of START_ORDER) await Promise.all(group.map((name) => services[name].start()));
    },
    logsSince(at) {
      const logs = [redisProcess.log, ...Object.values(services).map((s) => s.log)];
      return logs
        .flatMap((l) => l.since(at))
        .sort((a, b) => a.at - b.at)
        .slice(-400)
        .map((l) => l.text)
        .join('\n');
    },
    unexpectedExits(at) {
      return Object.values(services).flatMap((s) => s.unexpectedExits(at));
    },
    logCounts(at) {
      const counts = Object.values(services)
        .map((s) => [s.name, s.log.since(at).length] as const)
        .filter(([, n]) => n > 0);
      return counts.map(([name, n]) => `${name} ${n}`).join(', ') || 'none';
    },
    async close() {
      redis.disconnect();
      await Promise.all(Object.values(services).map((s) => s.kill()));
      await smtp.close();
      await redisProcess.stop();
    },
  };
}
