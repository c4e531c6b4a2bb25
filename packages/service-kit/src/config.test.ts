import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CommonEnv, ConfigError, RedisEnv, describeEnv, loadConfig } from './config.js';

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

    expect(rows).toContainEqual({ name: 'SHOPS_PORT', description: 'HTTP port', default: 8082 });
    expect(rows).toContainEqual(expect.objectContaining({ name: 'INTERNAL_AUTH_SECRET', default: undefined }));
  });
});
