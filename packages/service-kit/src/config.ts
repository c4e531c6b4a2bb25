// @module `loadConfig(schema)`: parses the environment once with zod and throws one `ConfigError` naming every bad variable (an empty string counts as unset); `CommonEnv`, `RedisEnv` and friends to `.extend()`; `describeEnv(schema)` feeds `pnpm docs:env`
import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_IPV6_LIMIT_PREFIX } from './address-key.js';

/** Variables every service reads. */
export const CommonEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development').describe('Runtime mode'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level'),
  PUBLIC_BASE_URL: z
    .url()
    .default('http://localhost:8080')
    .transform((u) => u.replace(/\/+$/, ''))
    .describe('Public base URL used in every link the API returns'),
  INTERNAL_AUTH_SECRET: z.string().min(32).describe('HS256 secret of the X-Internal-Auth JWT shared by all services (at least 32 characters)'),
  BIND_ADDRESS: z
    .string()
    .refine((v) => isIP(v) !== 0 || v === 'localhost', 'must be an IP address or localhost')
    .default('0.0.0.0')
    .describe('Interface every port of the service listens on: 0.0.0.0 (all, for containers), 127.0.0.1 to stay on this machine'),
  SHUTDOWN_DEADLINE_MS: z.coerce.number().int().min(100).default(10_000).describe('Graceful shutdown deadline'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional().describe('OTLP/HTTP collector base URL; when set, traces are exported (startTelemetry)'),
});

/** Variables of the services that count limits per client address. */
export const AddressLimitEnv = z.object({
  IPV6_LIMIT_PREFIX: z.coerce
    .number()
    .int()
    .min(1)
    .max(128)
    .default(DEFAULT_IPV6_LIMIT_PREFIX)
    .describe('Per-address limits count an IPv6 client by this prefix length (one subscriber usually holds a /64); IPv4 counts by the address'),
});

const HOST_PORT = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9._-]+):\d{1,5}$/;
const hostPortList = (what: string) =>
  z
    .string()
    .refine((v) => v.split(',').every((p) => HOST_PORT.test(p.trim())), `must be ${what} as host:port,host:port,…`)
    .optional();

/**
 * Where Redis is: one node (`REDIS_URL`), a Cluster (`REDIS_CLUSTER_NODES`)
 * or a Sentinel-watched master (`REDIS_SENTINELS` + `REDIS_SENTINEL_NAME`).
 * `redisTopologyOf(config)` turns these into what `createRedis` takes.
 */
export const RedisEnv = z.object({
  REDIS_URL: z.url().default('redis://127.0.0.1:6379').describe('Redis connection string of a single node (redis:// or rediss://); ignored when REDIS_CLUSTER_NODES or REDIS_SENTINELS is set'),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[^{}]*$/, 'must not contain { or }: keys put their own hash tag after it')
    .default('msa:')
    .describe('Prefix of every Redis key this deployment writes'),
  REDIS_CLUSTER_NODES: hostPortList('Redis Cluster seed nodes').describe('Redis Cluster seed nodes (host:port,…); when set, every client speaks Cluster'),
  REDIS_SENTINELS: hostPortList('Redis Sentinels').describe('Redis Sentinels (host:port,…); with REDIS_SENTINEL_NAME, clients follow the master they name'),
  REDIS_SENTINEL_NAME: z.string().min(1).optional().describe('Name of the master the Sentinels watch'),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional().describe('Password of the Sentinels themselves, when they require one'),
  REDIS_USERNAME: z.string().min(1).optional().describe('Redis ACL user (every node; a username in REDIS_URL wins)'),
  REDIS_PASSWORD: z.string().min(1).optional().describe('Redis password (every node; a password in REDIS_URL wins)'),
  REDIS_TLS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('Speak TLS to every Redis node (a rediss:// REDIS_URL does so too)'),
  REDIS_NAT_MAP: z
    .string()
    .refine((v) => v.split(',').every((p) => /^[^=]+:\d+=[^=]+:\d+$/.test(p.trim())), 'must be announced=reachable pairs as host:port=host:port,…')
    .optional()
    .describe('Cluster only: addresses the nodes announce mapped to addresses this service reaches (host:port=host:port,…), for managed or NATed clusters'),
});
export type RedisConfig = z.infer<typeof RedisEnv>;

export interface HostPort {
  host: string;
  port: number;
}

export interface RedisAuth {
  username?: string;
  password?: string;
  tls: boolean;
}

export type RedisTopology =
  | ({ kind: 'single'; url: string } & RedisAuth)
  | ({ kind: 'cluster'; nodes: HostPort[]; natMap?: Record<string, HostPort> } & RedisAuth)
  | ({ kind: 'sentinel'; sentinels: HostPort[]; name: string; sentinelPassword?: string } & RedisAuth);

function hostPorts(list: string): HostPort[] {
  return list.split(',').map((entry) => {
    const p = entry.trim();
    const i = p.lastIndexOf(':');
    return { host: p.slice(0, i).replace(/^\[(.*)\]$/, '$1'), port: Number(p.slice(i + 1)) };
  });
}

/** The topology a service's Redis variables describe; throws a ConfigError when they contradict each other. */
export function redisTopologyOf(config: RedisConfig): RedisTopology {
  const auth: RedisAuth = {
    tls: config.REDIS_TLS,
    ...(config.REDIS_USERNAME ? { username: config.REDIS_USERNAME } : {}),
    ...(config.REDIS_PASSWORD ? { password: config.REDIS_PASSWORD } : {}),
  };
  if (config.REDIS_CLUSTER_NODES && config.REDIS_SENTINELS) {
    throw new ConfigError(['REDIS_CLUSTER_NODES and REDIS_SENTINELS: set one of them, not both']);
  }
  if (config.REDIS_CLUSTER_NODES) {
    const natMap = config.REDIS_NAT_MAP
      ? Object.fromEntries(
          config.REDIS_NAT_MAP.split(',').map((pair) => {
            const [from, to] = pair.trim().split('=') as [string, string];
            return [from, hostPorts(to)[0]!];
          }),
        )
      : undefined;
    return { kind: 'cluster', nodes: hostPorts(config.REDIS_CLUSTER_NODES), ...(natMap ? { natMap } : {}), ...auth };
  }
  if (config.REDIS_SENTINELS) {
    if (!config.REDIS_SENTINEL_NAME) throw new ConfigError(['REDIS_SENTINEL_NAME: required with REDIS_SENTINELS']);
    return {
      kind: 'sentinel',
      sentinels: hostPorts(config.REDIS_SENTINELS),
      name: config.REDIS_SENTINEL_NAME,
      ...(config.REDIS_SENTINEL_PASSWORD ? { sentinelPassword: config.REDIS_SENTINEL_PASSWORD } : {}),
      ...auth,
    };
  }
  return { kind: 'single', url: config.REDIS_URL, ...auth };
}

/**
 * BullMQ keeps a queue's keys together only under a `{…}` hash tag: on a
 * Cluster a prefix without one fails at the first multi-key script. For
 * `.superRefine()` of an env schema that has QUEUE_PREFIX.
 */
export function queuePrefixRule(config: { REDIS_CLUSTER_NODES?: string | undefined; QUEUE_PREFIX: string }, ctx: z.RefinementCtx): void {
  if (config.REDIS_CLUSTER_NODES && !/\{[^{}]+\}/.test(config.QUEUE_PREFIX)) {
    ctx.addIssue({
      code: 'custom',
      path: ['QUEUE_PREFIX'],
      message: `'${config.QUEUE_PREFIX}' has no {…} hash tag, which Redis Cluster needs (e.g. {intake})`,
    });
  }
}

/** For services with Idempotency-Key support; see idempotency.ts. */
export const IdempotencyLockSeconds = z.coerce
  .number()
  .int()
  .min(1)
  .max(3_600)
  .default(30)
  .describe('How long a request in progress holds its Idempotency-Key; after a crash, retries get 409 idempotency_key_in_use this long, then the stored result');

/**
 * For services that wait for replicas to acknowledge their writes (Redis
 * WAIT, see waitForReplicas): what is acknowledged, when, and what happens
 * when too few replicas answer in time are the service's own.
 */
export function replicaWaitEnv(opts: { writes: string; before: string; shortfall: string; maxTimeoutMs: number }) {
  return z.object({
    REDIS_WAIT_REPLICAS: z.coerce
      .number()
      .int()
      .min(0)
      .max(16)
      .default(0)
      .describe(`Replicas that must acknowledge ${opts.writes} (Redis WAIT) before ${opts.before}; fewer in time: ${opts.shortfall}. 0 = off; 1 on a Cluster or Sentinel setup with replicas`),
    REDIS_WAIT_TIMEOUT_MS: z.coerce.number().int().min(1).max(opts.maxTimeoutMs).default(1_000).describe('How long one WAIT blocks for REDIS_WAIT_REPLICAS acknowledgements'),
  });
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once with the service's schema and throws one
 * ConfigError naming every bad variable. An empty string counts as unset.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  source: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
  );
}

/**
 * The `.describe()` texts and defaults of an env schema, for the README
 * tables and `.env.example` that `pnpm docs:env` writes. `default` is the
 * parsed value of an unset variable; `required` says that unset is refused;
 * `values` lists what an enum variable accepts.
 */
export function describeEnv(
  schema: z.ZodObject,
): { name: string; description: string; default?: unknown; required: boolean; values?: string[] }[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const f = field as z.ZodType;
    const parsed = f.safeParse(undefined);
    const values = enumValues(f);
    return {
      name,
      description: f.description ?? '',
      default: parsed.success ? parsed.data : undefined,
      required: !parsed.success,
      ...(values ? { values } : {}),
    };
  });
}

/** The options of the enum inside defaults, optionals and pipes, if there is one. */
function enumValues(field: z.ZodType): string[] | undefined {
  const def = field.def as { type: string; entries?: Record<string, string>; innerType?: z.ZodType; in?: z.ZodType };
  if (def.type === 'enum' && def.entries) return Object.values(def.entries);
  const inner = def.innerType ?? def.in;
  return inner ? enumValues(inner) : undefined;
}
