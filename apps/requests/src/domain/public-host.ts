// Tells whether a logo URL names a host nobody outside the caller's network can
// reach. It only looks at the URL (no DNS): the worker re-checks every resolved
// address before it downloads; this check exists to warn the caller early.
import { BlockList, isIP } from 'node:net';

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

const NON_PUBLIC_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa', '.lan'];

/** True when `url` points at localhost, a private or reserved IP literal, or a local-only name. */
export function isNonPublicUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return true;
  }
  host = host.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const family = isIP(host);
  if (family === 4) return NON_PUBLIC.check(host, 'ipv4');
  if (family === 6) {
    // An IPv4-mapped address (the URL parser writes ::ffff:7f00:1) is judged as its IPv4 address.
    const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
    if (mapped) {
      const n = (parseInt(mapped[1]!, 16) << 16) | parseInt(mapped[2]!, 16);
      return NON_PUBLIC.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
    }
    return NON_PUBLIC.check(host, 'ipv6');
  }
  if (host === 'localhost') return true;
  if (NON_PUBLIC_SUFFIXES.some((suffix) => host.endsWith(suffix))) return true;
  // A name without a dot resolves only inside some local network.
  return !host.includes('.');
}
