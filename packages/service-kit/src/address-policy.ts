// @module No I/O. `forbiddenRange(address)`: the `ipaddr.js` range that makes an address not public (private, loopback, link-local, metadata, IPv4-embedding IPv6 forms, …) or null; `createAddressPolicy({ allowPrivate, allowed })` and `parseCidrList` for a fetch's exceptions; `isNonPublicUrl(url)`: a URL whose host cannot be public, read without DNS
/*
 * Which addresses a fetch of a caller-supplied URL may connect to (a logo,
 * a Client ID Metadata Document). Logo URLs come from
 * callers, so without this check a shop request could make the worker fetch
 * cloud metadata (169.254.169.254), the Redis next door or an admin page on
 * the private network and mail the answer to the operator.
 * No I/O and no http modules: `@msa/service-kit/address-policy` is this file
 * alone, for code that judges a URL without fetching it.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

/** Cloud metadata endpoints, named on their own so a refusal says what it stopped. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

/**
 * ipaddr.js names every special-purpose range; only its plain `unicast`
 * (public) addresses are fetched. IPv6 forms that embed an IPv4 address
 * (mapped, translated, NAT64, 6to4, Teredo) are refused outright: they can
 * reach an IPv4 host behind the IPv4 checks' back.
 */
const IPV4_COMPATIBLE: Cidr = [ipaddr.parse('::'), 96];

export interface AddressPolicy {
  /** Why the address must not be fetched, or null when it may. */
  refusal(address: string): string | null;
}

export function parseCidrList(list: string): Cidr[] {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => (item.includes('/') ? ipaddr.parseCIDR(item) : toHostCidr(ipaddr.parse(item))));
}

function toHostCidr(address: Address): Cidr {
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/** The range name that forbids `address`, or null for a public one. */
export function forbiddenRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  const normal = parsed.toNormalizedString();
  if (METADATA_ADDRESSES.has(normal) || METADATA_ADDRESSES.has(parsed.toString())) return 'metadata';
  const range = parsed.range();
  if (parsed.kind() === 'ipv6' && range === 'unicast' && parsed.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return range === 'unicast' ? null : range;
}

export function createAddressPolicy({ allowPrivate, allowed = [] }: { allowPrivate: boolean; allowed?: Cidr[] }): AddressPolicy {
  return {
    refusal(address) {
      if (allowPrivate) return null;
      const range = forbiddenRange(address);
      if (range === null) return null;
      if (ipaddr.isValid(address)) {
        const parsed = ipaddr.parse(address);
        if (allowed.some(([net, bits]) => net.kind() === parsed.kind() && parsed.match(net, bits))) return null;
      }
      return `address ${address} is not public (${range})`;
    },
  };
}

/** Host names that resolve only inside some local network. */
const LOCAL_NAME_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa', '.lan'];

/**
 * True when `url` cannot name a public host: not a URL, `localhost`, a
 * local-only name (`.local`, `.internal`, …, or a name without a dot), or an
 * IP literal that `forbiddenRange` refuses. It reads the URL only (no DNS),
 * to warn a caller early; a fetch still checks every address it resolves.
 * An IPv4-mapped IPv6 literal is judged as the IPv4 address it maps.
 */
export function isNonPublicUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return true;
  }
  host = host.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isIP(host) !== 0) return forbiddenRange(ipaddr.process(host).toString()) !== null;
  if (host === 'localhost') return true;
  if (LOCAL_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix))) return true;
  return !host.includes('.');
}
