import { describe, expect, it } from 'vitest';
import { isNonPublicUrl } from './public-host.js';

describe('isNonPublicUrl', () => {
  it.each([
    'http://localhost/logo.png',
    'http://LOCALHOST:8080/logo.png',
    'http://127.0.0.1/logo.png',
    'http://2130706433/logo.png',
    'http://10.1.2.3/logo.png',
    'http://172.20.0.5/logo.png',
    'http://192.168.178.1/logo.png',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.1.1/logo.png',
    'http://0.0.0.0/logo.png',
    'http://[::1]/logo.png',
    'http://[fd00::1]/logo.png',
    'http://[fe80::1]/logo.png',
    'http://[::ffff:127.0.0.1]/logo.png',
    'https://nas.local/logo.png',
    'https://files.corp.internal/logo.png',
    'https://intranet/logo.png',
    'https://printer.localhost./logo.png',
  ])('flags %s', (url) => {
    expect(isNonPublicUrl(url)).toBe(true);
  });

  it.each([
    'https://example.com/logo.png',
    'https://cdn.verein-musterstadt.de/logo.svg',
    'http://93.184.216.34/logo.png',
    'http://172.32.0.1/logo.png',
    'http://[2606:4700::6810:85e5]/logo.png',
    'http://[::ffff:93.184.216.34]/logo.png',
  ])('accepts %s', (url) => {
    expect(isNonPublicUrl(url)).toBe(false);
  });
});
