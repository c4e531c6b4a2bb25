import { describe, expect, it } from 'vitest';
import { limitKeyOfAddress } from './address-key.js';

describe('limitKeyOfAddress', () => {
  it('counts an IPv4 address as itself', () => {
    expect(limitKeyOfAddress('203.0.113.7')).toBe('4:203.0.113.7');
    expect(limitKeyOfAddress('203.0.113.8')).not.toBe(limitKeyOfAddress('203.0.113.7'));
  });

  it('counts two addresses of one IPv6 /64 as one client', () => {
    const a = limitKeyOfAddress('2001:db8:1:2::1');
    expect(a).toBe('6:2001:db8:1:2::/64');
    expect(limitKeyOfAddress('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(a);
    expect(limitKeyOfAddress('2001:0db8:0001:0002:0000:0000:0000:0009')).toBe(a);
  });

  it('counts addresses of different IPv6 /64s apart', () => {
    expect(limitKeyOfAddress('2001:db8:1:3::1')).not.toBe(limitKeyOfAddress('2001:db8:1:2::1'));
  });

  it('counts by the configured prefix length', () => {
    expect(limitKeyOfAddress('2001:db8:1:2::1', { ipv6Prefix: 48 })).toBe('6:2001:db8:1::/48');
    expect(limitKeyOfAddress('2001:db8:1:3::1', { ipv6Prefix: 48 })).toBe(limitKeyOfAddress('2001:db8:1:2::1', { ipv6Prefix: 48 }));
    expect(limitKeyOfAddress('2001:db8:1:2::1', { ipv6Prefix: 128 })).toBe('6:2001:db8:1:2::1/128');
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it carries', () => {
    expect(limitKeyOfAddress('::ffff:203.0.113.7')).toBe('4:203.0.113.7');
    expect(limitKeyOfAddress('::ffff:cb00:7107')).toBe('4:203.0.113.7');
  });

  it('drops a zone index', () => {
    expect(limitKeyOfAddress('fe80::1%eth0')).toBe('6:fe80::/64');
  });

  it('keeps a text that is no address apart from every address', () => {
    expect(limitKeyOfAddress('unknown')).toBe('x:unknown');
    expect(limitKeyOfAddress('1.2.3.4.5')).toBe('x:1.2.3.4.5');
    expect(limitKeyOfAddress('')).toBe('x:');
    expect(limitKeyOfAddress('a'.repeat(500))).toHaveLength(66);
  });

  it('refuses a prefix length outside 1 to 128', () => {
    expect(() => limitKeyOfAddress('2001:db8::1', { ipv6Prefix: 0 })).toThrow(RangeError);
    expect(() => limitKeyOfAddress('2001:db8::1', { ipv6Prefix: 129 })).toThrow(RangeError);
  });
});
