import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CommonEnv, ConfigError, RedisEnv, describeEnv, loadConfig, queuePrefixRule, redisTopologyOf } from './config.js';

const SECRET = 's'.repeat(32);
const ServiceEnv = CommonEnv.extend(RedisEnv.shape).extend({
  SHOPS_PORT: z.coerce.number().int().min(0).max(65535).default(8082).describe('HTTP port'),
});

function configError(source: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(ServiceEnv, source);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('fills every default from an environment that only holds the secret', () => {
    const config = loadConfig(ServiceEnv, { INTERNAL_AUTH_SECRET: SECRET });

    expect(config).toEqual({
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      PUBLIC_BASE_URL: 'http://localhost:8080',
      INTERNAL_AUTH_SECRET: SECRET,
      BIND_ADDRESS: '0.0.0.0',
      SHUTDOWN_DEADLINE_MS: 10_000,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'msa:',
      REDIS_TLS: false,
      SHOPS_PORT: 8082,
    });
  });

  it('coerces numbers and drops a trailing slash of PUBLIC_BASE_URL', () => {
    const config = loadConfig(ServiceEnv, {
      INTERNAL_AUTH_SECRET: SECRET,
      SHOPS_PORT: '0',
      PUBLIC_BASE_URL: 'https://api.example.de/',
    });

    expect(config.SHOPS_PORT).toBe(0);
    expect(config.PUBLIC_BASE_URL).toBe('https://api.example.de');
  });

  it('names every bad variable in one error', () => {
    const err = configError({
      INTERNAL_AUTH_SECRET: 'short',
      SHOPS_PORT: 'eighty',
      LOG_LEVEL: 'loud',
      REDIS_URL: 'not a url',
      PUBLIC_BASE_URL: 'nowhere',
    });

    const named = err.problems.map((p) => p.split(':')[0]).sort();
    expect(named).toEqual(['INTERNAL_AUTH_SECRET', 'LOG_LEVEL', 'PUBLIC_BASE_URL', 'REDIS_URL', 'SHOPS_PORT']);
    for (const name of named) expect(err.message).toContain(name);
  });

  it('names a missing required variable', () => {
    expect(configError({}).problems).toEqual([expect.stringMatching(/^INTERNAL_AUTH_SECRET: /)]);
  });

  it('treats an empty string as unset, so the default applies', () => {
    const config = loadConfig(ServiceEnv, { INTERNAL_AUTH_SECRET: SECRET, SHOPS_PORT: '', LOG_LEVEL: '', REDIS_KEY_PREFIX: '' });

    expect(config.SHOPS_PORT).toBe(8082);
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.REDIS_KEY_PREFIX).toBe('msa:');
  });

  it('treats an empty required variable as missing', () => {
    expect(configError({ INTERNAL_AUTH_SECRET: '' }).problems).toEqual([expect.stringMatching(/^INTERNAL_AUTH_SECRET: /)]);
  });

  it('ignores variables the schema does not know', () => {
    expect(loadConfig(ServiceEnv, { INTERNAL_AUTH_SECRET: SECRET, PATH: '/usr/bin' })).not.toHaveProperty('PATH');
  });
});

describe('BIND_ADDRESS', () => {
  it('takes an IP address or localhost to listen on', () => {
    expect(loadConfig(ServiceEnv, { INTERNAL_AUTH_SECRET: SECRET, BIND_ADDRESS: '127.0.0.1' }).BIND_ADDRESS).toBe('127.0.0.1');
    expect(loadConfig(ServiceEnv, { INTERNAL_AUTH_SECRET: SECRET, BIND_ADDRESS: '::' }).BIND_ADDRESS).toBe('::');
    expect(loadConfig(ServiceEnv, { INTERNAL_AUTH_SECRET: SECRET, BIND_ADDRESS: 'localhost' }).BIND_ADDRESS).toBe('localhost');
  });

  it('refuses a host name it cannot bind without a lookup', () => {
    expect(configError({ INTERNAL_AUTH_SECRET: SECRET, BIND_ADDRESS: 'example.org' }).problems).toEqual([
      'BIND_ADDRESS: must be an IP address or localhost',
    ]);
  });
});

describe('describeEnv', () => {
  it('lists each variable with its description and default', () => {
    const rows = describeEnv(ServiceEnv);

    expect(rows).toContainEqual({ name: 'SHOPS_PORT', description: 'HTTP port', default: 8082, required: false });
    expect(rows).toContainEqual(expect.objectContaining({ name: 'INTERNAL_AUTH_SECRET', default: undefined }));
  });

  it('tells a required variable from an optional one without a default', () => {
    const rows = describeEnv(ServiceEnv);

    expect(rows).toContainEqual(expect.objectContaining({ name: 'INTERNAL_AUTH_SECRET', required: true }));
    expect(rows).toContainEqual(expect.objectContaining({ name: 'OTEL_EXPORTER_OTLP_ENDPOINT', default: undefined, required: false }));
  });

  it('lists what an enum variable accepts, also behind a default and a transform', () => {
    const values = Object.fromEntries(describeEnv(ServiceEnv).map((row) => [row.name, row.values]));

    expect(values.NODE_ENV).toEqual(['development', 'production', 'test']);
    expect(values.REDIS_TLS).toEqual(['true', 'false']);
    expect(values.SHOPS_PORT).toBeUndefined();
  });
});

describe('redisTopologyOf', () => {
  const topology = (env: Record<string, string>) => redisTopologyOf(loadConfig(RedisEnv, env));

  it('is a single node from REDIS_URL when nothing else is set', () => {
    expect(topology({ REDIS_URL: 'redis://cache:6380' })).toEqual({ kind: 'single', url: 'redis://cache:6380', tls: false });
  });

  it('is a Cluster of the seed nodes in REDIS_CLUSTER_NODES, with credentials, TLS and a NAT map', () => {
    expect(
      topology({
        REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis-1.internal:7001,[::1]:7002',
        REDIS_USERNAME: 'msa',
        REDIS_PASSWORD: 'pw',
        REDIS_TLS: 'true',
        REDIS_NAT_MAP: '10.0.0.1:7000=redis-0.example.org:17000',
      }),
    ).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-1.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      natMap: { '10.0.0.1:7000': { host: 'redis-0.example.org', port: 17000 } },
      username: 'msa',
      password: 'pw',
      tls: true,
    });
  });

  it('follows the master a Sentinel group names', () => {
    expect(topology({ REDIS_SENTINELS: 's1:26379,s2:26379', REDIS_SENTINEL_NAME: 'msa', REDIS_SENTINEL_PASSWORD: 'spw' })).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'msa',
      sentinelPassword: 'spw',
      tls: false,
    });
  });

  it.each([
    [{ REDIS_CLUSTER_NODES: 'a:1', REDIS_SENTINELS: 'b:2', REDIS_SENTINEL_NAME: 'm' }, 'REDIS_CLUSTER_NODES and REDIS_SENTINELS'],
    [{ REDIS_SENTINELS: 'b:2' }, 'REDIS_SENTINEL_NAME'],
  ])('refuses contradicting or incomplete variables, naming them (%o)', (env, named) => {
    expect(() => topology(env)).toThrow(named);
  });

  it.each([
    ['REDIS_CLUSTER_NODES', 'redis-0'],
    ['REDIS_SENTINELS', 'a:1,b'],
    ['REDIS_NAT_MAP', '10.0.0.1:7000'],
    ['REDIS_KEY_PREFIX', 'msa:{x}:'],
    ['REDIS_TLS', 'yes'],
  ])('names %s when its value is malformed', (name, value) => {
    expect(() => loadConfig(RedisEnv, { [name]: value })).toThrow(name);
  });
});

describe('queuePrefixRule', () => {
  const QueueEnv = RedisEnv.extend({ QUEUE_PREFIX: z.string().default('{intake}') }).superRefine(queuePrefixRule);

  it('refuses a QUEUE_PREFIX without a hash tag on a Cluster, naming the variable', () => {
    expect(() => loadConfig(QueueEnv, { REDIS_CLUSTER_NODES: 'a:7000', QUEUE_PREFIX: 'intake' })).toThrow(/QUEUE_PREFIX: .*hash tag/);
  });

  it('accepts a tagged prefix on a Cluster and any prefix on one node', () => {
    expect(loadConfig(QueueEnv, { REDIS_CLUSTER_NODES: 'a:7000', QUEUE_PREFIX: 'prod:{intake}' }).QUEUE_PREFIX).toBe('prod:{intake}');
    expect(loadConfig(QueueEnv, { QUEUE_PREFIX: 'intake' }).QUEUE_PREFIX).toBe('intake');
  });
});
