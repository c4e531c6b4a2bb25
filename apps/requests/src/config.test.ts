import { ConfigError, loadConfig } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { RequestsEnv } from './config.js';

const secret = 'x'.repeat(32);

describe('RequestsEnv', () => {
  it('fills in the documented defaults', () => {
    const config = loadConfig(RequestsEnv, { INTERNAL_AUTH_SECRET: secret });

    expect(config).toMatchObject({
      REQUESTS_PORT: 8083,
      CATALOG_URL: 'http://127.0.0.1:8081',
      QUEUE_PREFIX: '{intake}',
      INTAKE_ATTEMPTS: 8,
      INTAKE_BACKOFF_MS: 2000,
      RECONCILE_INTERVAL_MS: 30_000,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: 'msa:',
      SHOP_REQUEST_MAX_STORED_BYTES: 98_304,
      SHOP_REQUEST_LIVE_RETENTION_DAYS: 730,
      QUOTE_LIFETIME_SECONDS: 7 * 86_400,
      QUOTES_PER_PRINCIPAL_PER_DAY: 100,
      QUOTES_PER_ADDRESS_PER_DAY: 200,
      SANDBOX_REQUESTS_PER_ADDRESS_PER_DAY: 200,
      LIVE_REQUESTS_PER_DOMAIN_PER_DAY: 20,
      REDIS_WAIT_REPLICAS: 0,
      REDIS_WAIT_TIMEOUT_MS: 1000,
    });
  });

  it('refuses a quote lifetime longer than seven days', () => {
    const attempt = () => loadConfig(RequestsEnv, { INTERNAL_AUTH_SECRET: secret, QUOTE_LIFETIME_SECONDS: String(7 * 86_400 + 1) });

    expect(attempt).toThrow(/QUOTE_LIFETIME_SECONDS/);
  });

  it('names every bad variable at once', () => {
    const attempt = () => loadConfig(RequestsEnv, { INTERNAL_AUTH_SECRET: secret, INTAKE_ATTEMPTS: '0', CATALOG_URL: 'not a url' });

    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/INTAKE_ATTEMPTS[\s\S]*CATALOG_URL|CATALOG_URL[\s\S]*INTAKE_ATTEMPTS/);
  });
});
