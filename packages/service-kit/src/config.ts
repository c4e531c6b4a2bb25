import { isIP } from 'node:net';
import { z } from 'zod';

/** Variables every service reads. */
export const CommonEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development').describe('Runtime mode'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level'),
  PUBLIC_BASE_URL: z
    .url()
    .default('http://localhost:8080')
    .transform((u) => u.replace(/\/+$/, ''))
    .describe('Public base URL used in every link the API returns'),
  INTERNAL_AUTH_SECRET: z.string().min(32).describe('HS256 secret of the X-Internal-Auth JWT shared by all services'),
  BIND_ADDRESS: z
    .string()
    .refine((v) => isIP(v) !== 0 || v === 'localhost', 'must be an IP address or localhost')
    .default('0.0.0.0')
    .describe('Interface every port of the service listens on: 0.0.0.0 (all, for containers), 127.0.0.1 to stay on this machine'),
  SHUTDOWN_DEADLINE_MS: z.coerce.number().int().min(100).default(10_000).describe('Graceful shutdown deadline'),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional().describe('OTLP/HTTP collector base URL; when set, traces are exported (startTelemetry)'),
});

export const RedisEnv = z.object({
  REDIS_URL: z.url().default('redis://127.0.0.1:6379').describe('Redis connection string'),
  REDIS_KEY_PREFIX: z.string().default('msa:').describe('Prefix of every Redis key this deployment writes'),
});

/** For services with Idempotency-Key support; see idempotency.ts. */
export const IdempotencyLockSeconds = z.coerce
  .number()
  .int()
  .min(1)
  .max(3_600)
  .default(30)
  .describe('How long a request in progress holds its Idempotency-Key; after a crash, retries get 409 idempotency_key_in_use this long, then the stored result');

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

/** The `.describe()` texts and defaults of an env schema, for a README table. */
export function describeEnv(schema: z.ZodObject): { name: string; description: string; default?: unknown }[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const f = field as z.ZodType;
    let def: unknown;
    const parsed = f.safeParse(undefined);
    if (parsed.success) def = parsed.data;
    return { name, description: f.description ?? '', default: def };
  });
}
