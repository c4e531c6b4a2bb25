import { describe, expect, it } from 'vitest';
import { createAddressPolicy, forbiddenRange, isNonPublicUrl, parseCidrList } from './address-policy.js';

describe('forbiddenRange', () => {
  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.10', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.10.20', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['169.254.169.254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['192.0.2.5', 'reserved'],
    ['240.0.0.1', 'reserved'],
  ])('refuses IPv4 %s (%s)', (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'ipv4Mapped'],
    ['::ffff:10.0.0.1', 'ipv4Mapped'],
    ['::ffff:169.254.169.254', 'ipv4Mapped'],
    ['::ffff:8.8.8.8', 'ipv4Mapped'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['64:ff9b:1::a00:1', 'rfc6052'],
    ['2002:7f00:1::1', '6to4'],
    ['2001:0:4136:e378::1', 'teredo'],
    ['::7f00:1', 'ipv4Compatible'],
    ['2001:db8::1', 'reserved'],
  ])('refuses IPv6 %s (%s)', (address, range) => {
    expect(forbiddenRange(address)).toBe(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '172.32.0.1', '100.128.0.1', '2a00:1450:4001:82b::200e', '2606:4700:4700::1111'])(
    'allows the public address %s',
    (address) => {
      expect(forbiddenRange(address)).toBeNull();
    },
  );

  it('refuses what is not an address', () => {
    expect(forbiddenRange('example.org')).toBe('not an IP address');
  });
});

describe('createAddressPolicy', () => {
  it('names the address and its range in the refusal', () => {
    const policy = createAddressPolicy({ allowPrivate: false });

    expect(policy.refusal('192.168.0.7')).toBe('address 192.168.0.7 is not public (private)');
    expect(policy.refusal('8.8.8.8')).toBeNull();
  });

  it('allows every address when private networks are allowed', () => {
    const policy = createAddressPolicy({ allowPrivate: true });

    expect(policy.refusal('127.0.0.1')).toBeNull();
    expect(policy.refusal('169.254.169.254')).toBeNull();
  });

  it('allows only the listed private addresses and networks', () => {
    const policy = createAddressPolicy({ allowPrivate: false, allowed: parseCidrList('127.0.0.1, 10.20.0.0/16, fd00:1::/32') });

    expect(policy.refusal('127.0.0.1')).toBeNull();
    expect(policy.refusal('10.20.3.4')).toBeNull();
    expect(policy.refusal('fd00:1::5')).toBeNull();
    expect(policy.refusal('127.0.0.2')).not.toBeNull();
    expect(policy.refusal('10.21.0.1')).not.toBeNull();
    expect(policy.refusal('169.254.169.254')).not.toBeNull();
  });
});

describe('parseCidrList', () => {
  it('reads an empty list as no networks', () => {
    expect(parseCidrList('')).toEqual([]);
  });

  it('throws on an entry that is not an address', () => {
    expect(() => parseCidrList('10.0.0.0/8, intranet')).toThrow();
  });
});

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
