import { ConfigError, loadConfig } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { IntakeWorkerEnv, mailboxAddress } from './config.js';

const SECRET = 'x'.repeat(32);

describe('IntakeWorkerEnv', () => {
  it('starts in development with defaults and the internal-auth secret', () => {
    const config = loadConfig(IntakeWorkerEnv, { INTERNAL_AUTH_SECRET: SECRET });

    expect(config).toMatchObject({
      WORKER_PORT: 8086,
      QUEUE_PREFIX: '{intake}',
      INTAKE_CONCURRENCY: 10,
      LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: false,
      LOGO_MAX_BYTES: 4 * 1024 * 1024,
      LOGO_TIMEOUT_MS: 10_000,
      OUTBOX_DIR: '.data/outbox',
    });
    expect(config.SMTP_URL).toBeUndefined();
  });

  it('refuses to start without INTERNAL_AUTH_SECRET, which opens the sealed consent codes of the mail queue', () => {
    expect(() => loadConfig(IntakeWorkerEnv, {})).toThrow('INTERNAL_AUTH_SECRET');
    expect(() => loadConfig(IntakeWorkerEnv, { INTERNAL_AUTH_SECRET: 'too short' })).toThrow('INTERNAL_AUTH_SECRET');
  });

  it('refuses production without SMTP_URL, MAIL_FROM and OPERATOR_EMAIL, naming each', () => {
    expect(() => loadConfig(IntakeWorkerEnv, { NODE_ENV: 'production', INTERNAL_AUTH_SECRET: SECRET })).toThrow(ConfigError);
    try {
      loadConfig(IntakeWorkerEnv, { NODE_ENV: 'production', INTERNAL_AUTH_SECRET: SECRET });
    } catch (err) {
      expect((err as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['SMTP_URL', 'MAIL_FROM', 'OPERATOR_EMAIL']);
    }
  });

  it('starts in production with the mail settings given', () => {
    const config = loadConfig(IntakeWorkerEnv, {
      NODE_ENV: 'production',
      INTERNAL_AUTH_SECRET: SECRET,
      SMTP_URL: 'smtp://mailer:secret@smtp.example.org:587',
      MAIL_FROM: 'Merch-Shop <anfragen@example.org>',
      OPERATOR_EMAIL: 'team@example.org',
    });

    expect(config.OPERATOR_EMAIL).toBe('team@example.org');
  });

  it.each([
    ['LOGO_FETCH_ALLOW_PRIVATE_NETWORKS', 'maybe'],
    ['LOGO_FETCH_ALLOW_ADDRESSES', '10.0.0.0/8, intranet'],
    ['SMTP_URL', 'http://mail.example.org'],
    ['MAIL_FROM', 'not an address'],
    ['INTAKE_CONCURRENCY', '0'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig(IntakeWorkerEnv, { INTERNAL_AUTH_SECRET: SECRET, [name]: value })).toThrow(name);
  });

  it('wants the queue UI credentials together', () => {
    expect(() => loadConfig(IntakeWorkerEnv, { INTERNAL_AUTH_SECRET: SECRET, ADMIN_USER: 'ops' })).toThrow('ADMIN_PASSWORD');
  });
});

describe('mailboxAddress', () => {
  it.each([
    ['Merch-Shop <anfragen@example.org>', 'anfragen@example.org'],
    ['anfragen@example.org', 'anfragen@example.org'],
  ])('reads %s', (mailbox, address) => {
    expect(mailboxAddress(mailbox)).toBe(address);
  });
});
