// Starts the whole system in one process: every service on a free port,
// the gateway in front, one Redis key prefix and one BullMQ prefix for this
// system only. Real HTTP between services, real Redis, real BullMQ.
import { Writable } from 'node:stream';
import { createLogger, loadConfig, type Logger, type RunningService } from '@msa/service-kit';
import { TEST_INTERNAL_SECRET, createTestRedis, freePort, testEcKeyPair, type TestRedis } from '@msa/test-kit';

export interface SystemOptions {
  /** Names the key prefix; one per test file. */
  name: string;
  /** Start the intake worker, delivering to this SMTP server. */
  worker?: { smtpUrl: string; operatorEmail?: string; env?: Record<string, string> };
  /** Extra variables for every service. */
  env?: Record<string, string>;
  /** Extra variables for the gateway only (e.g. a higher anonymous rate limit). */
  gatewayEnv?: Record<string, string>;
  /** Keep every service's log lines (debug and up) in `System.logs`. */
  captureLogs?: boolean;
}

/** One parsed log line of a service. */
export type LogLine = Record<string, unknown> & { service: string; msg?: string };

export interface System {
  /** The gateway's URL, also the PUBLIC_BASE_URL every service uses. */
  baseUrl: string;
  services: Record<string, RunningService>;
  redis: TestRedis['redis'];
  redisUrl: string;
  /** REDIS_KEY_PREFIX of this system. */
  prefix: string;
  /** QUEUE_PREFIX (BullMQ) of this system. */
  queuePrefix: string;
  env: Record<string, string>;
  /** Log lines of every service, when `captureLogs` was asked for. */
  logs: LogLine[];
  close(): Promise<void>;
}

export { freePort };

type Starter = {
  startService(config: unknown, deps: { logger?: Logger }): Promise<RunningService>;
} & Record<string, unknown>;

/** The app's env schema: its `Env` export, or the one export named `<Name>Env`. */
function envSchemaOf(mod: Starter): unknown {
  if (mod.Env) return mod.Env;
  const found = Object.entries(mod).find(([k, v]) => k.endsWith('Env') && typeof v === 'object' && v !== null && 'shape' in v);
  if (!found) throw new Error('the app exports no env schema');
  return found[1];
}

async function start(mod: Starter, env: Record<string, string>, logger?: Logger): Promise<RunningService> {
  const config = loadConfig(envSchemaOf(mod) as never, env);
  return mod.startService(config, logger ? { logger } : {});
}

/** A logger whose JSON lines land in `sink`, parsed. */
function capturingLogger(service: string, sink: LogLine[]): Logger {
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) sink.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return createLogger({ service, level: 'debug', destination: stream });
}

/**
 * The gateway's port is chosen before anything starts (every service needs
 * the public base URL), so another socket can take it meanwhile: then the
 * whole system starts again on another port.
 */
export async function startSystem(opts: SystemOptions): Promise<System> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSystemOnce(opts);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 3) throw err;
    }
  }
}

async function startSystemOnce(opts: SystemOptions): Promise<System> {
  const tr = await createTestRedis(opts.name);
  const gatewayPort = await freePort();
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const keys = testEcKeyPair();
  const queuePrefix = `{${tr.prefix}intake}`;
  const common: Record<string, string> = {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PUBLIC_BASE_URL: baseUrl,
    // Loopback only: a port held by an outgoing connection elsewhere does not block it.
    BIND_ADDRESS: '127.0.0.1',
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    REDIS_URL: tr.url,
    REDIS_KEY_PREFIX: tr.prefix,
    QUEUE_PREFIX: queuePrefix,
    SHUTDOWN_DEADLINE_MS: '5000',
    ...opts.env,
  };
  const services: Record<string, RunningService> = {};
  const logs: LogLine[] = [];
  const logger = (service: string) => (opts.captureLogs ? capturingLogger(service, logs) : undefined);
  const stopAll = async () => {
    for (const name of ['gateway', 'mcp', 'intake-worker', 'requests', 'identity', 'shops', 'catalog']) {
      await services[name]?.close().catch(() => undefined);
    }
  };
  try {
    services.catalog = await start((await import('@msa/catalog')) as unknown as Starter, { ...common, CATALOG_PORT: '0', CATALOG_ADMIN_PORT: '0' }, logger('catalog'));
    services.shops = await start((await import('@msa/shops')) as unknown as Starter, { ...common, SHOPS_PORT: '0', SHOPS_ADMIN_PORT: '0' }, logger('shops'));
    services.requests = await start((await import('@msa/requests')) as unknown as Starter, {
      ...common,
      REQUESTS_PORT: '0',
      REQUESTS_ADMIN_PORT: '0',
      CATALOG_URL: services.catalog.url,
      RECONCILE_INTERVAL_MS: '1000',
      INTAKE_BACKOFF_MS: '200',
    }, logger('requests'));
    // After requests: /v1/me/data finds and erases a person's shop requests there.
    services.identity = await start((await import('@msa/identity')) as unknown as Starter, {
      ...common,
      IDENTITY_PORT: '0',
      IDENTITY_ADMIN_PORT: '0',
      TOKEN_SIGNING_KEY: keys.privateKeyPem,
      TOKEN_SIGNING_KID: 'test-key-1',
      REQUESTS_URL: services.requests.url,
    }, logger('identity'));
    services.mcp = await start((await import('@msa/mcp')) as unknown as Starter, {
      ...common,
      MCP_PORT: '0',
      MCP_ADMIN_PORT: '0',
      CATALOG_URL: services.catalog.url,
      SHOPS_URL: services.shops.url,
      REQUESTS_URL: services.requests.url,
    }, logger('mcp'));
    if (opts.worker) {
      services['intake-worker'] = await start((await import('@msa/intake-worker')) as unknown as Starter, {
        ...common,
        WORKER_PORT: '0',
        SMTP_URL: opts.worker.smtpUrl,
        OPERATOR_EMAIL: opts.worker.operatorEmail ?? 'operator@merch.test',
        MAIL_FROM: 'Merch-Shop <noreply@merch.test>',
        LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'true',
        ...opts.worker.env,
      }, logger('intake-worker'));
    }
    services.gateway = await start((await import('@msa/gateway')) as unknown as Starter, {
      ...common,
      GATEWAY_PORT: String(gatewayPort),
      GATEWAY_ADMIN_PORT: '0',
      CATALOG_URL: services.catalog.url,
      SHOPS_URL: services.shops.url,
      REQUESTS_URL: services.requests.url,
      IDENTITY_URL: services.identity.url,
      MCP_URL: services.mcp.url,
      ...opts.gatewayEnv,
    }, logger('gateway'));
  } catch (err) {
    await stopAll();
    await tr.cleanup();
    throw err;
  }
  return {
    baseUrl,
    services,
    redis: tr.redis,
    redisUrl: tr.url,
    prefix: tr.prefix,
    queuePrefix,
    env: common,
    logs,
    async close() {
      await stopAll();
      await tr.cleanup();
    },
  };
}

/** Creates credentials through the gateway and returns the ApiKey body. */
export async function createKey(
  baseUrl: string,
  body: { name?: string; email?: string; scopes?: string[]; mode?: 'sandbox' | 'live' } = {},
): Promise<{ api_key: string; client_id: string; client_secret: string; mode: string; scopes: string[] }> {
  const res = await fetch(`${baseUrl}/v1/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'system-test-agent', email: 'agent@example.org', ...body }),
  });
  if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as never;
}
