// @module `limitKeyOfAddress(address, { ipv6Prefix })`: the key a per-address limit counts a client under; IPv6 by its prefix (`IPV6_LIMIT_PREFIX`, default /64), an IPv4-mapped address as its IPv4
/*
 * The key a per-address limit counts a client under. One IPv6 subscriber
 * usually holds a whole /64 (often more), so counting each IPv6 address on
 * its own would let one caller multiply every per-address limit by 2^64.
 * IPv6 addresses therefore count by their prefix; an IPv4-mapped IPv6
 * address (`::ffff:1.2.3.4`, how a dual-stack socket reports IPv4) counts as
 * the IPv4 address it carries.
 */
import ipaddr from 'ipaddr.js';

export const DEFAULT_IPV6_LIMIT_PREFIX = 64;

export interface AddressKeyOptions {
  /** The IPv6 prefix length counted as one client (1 to 128); undefined for the default. */
  ipv6Prefix?: number | undefined;
}

/**
 * `4:1.2.3.4` for IPv4 (mapped or not), `6:2001:db8:1:2::/64` for IPv6; a
 * text that is no address (a socket already closed) counts under `x:` so it
 * never shares a key with an address.
 */
export function limitKeyOfAddress(address: string, { ipv6Prefix = DEFAULT_IPV6_LIMIT_PREFIX }: AddressKeyOptions = {}): string {
  // A zone index (fe80::1%eth0) names the interface, not the client.
  const text = address.trim().replace(/%.*$/, '');
  if (!ipaddr.isValid(text)) return `x:${address.slice(0, 64)}`;
  let parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return `4:${parsed.toString()}`;
  if (!Number.isInteger(ipv6Prefix) || ipv6Prefix < 1 || ipv6Prefix > 128) throw new RangeError(`ipv6Prefix must be 1 to 128, not ${ipv6Prefix}`);
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${ipv6Prefix}`);
  return `6:${network.toString()}/${ipv6Prefix}`;
}
