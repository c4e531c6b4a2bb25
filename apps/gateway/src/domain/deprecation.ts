import type { Deprecation } from '@msa/contracts';

function toRegExp(path: string): RegExp {
  const body = path
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return new RegExp(`^${body}/?$`);
}

export interface DeprecationHeaders {
  Deprecation: string;
  Sunset: string;
  Link: string;
}

/** Header values for a deprecated operation (`Deprecation: true` as spec §9 says, RFC 8594 `Sunset`), or null. */
export function createDeprecationLookup(list: readonly Deprecation[], publicBaseUrl: string) {
  const compiled = list.map((d) => ({ d, re: toRegExp(d.path) }));
  return (method: string, path: string): DeprecationHeaders | null => {
    const hit = compiled.find(({ d, re }) => d.method === method && re.test(path));
    if (!hit) return null;
    return {
      Deprecation: 'true',
      Sunset: new Date(hit.d.sunset).toUTCString(),
      Link: `<${publicBaseUrl}${hit.d.notice}>; rel="deprecation"; type="text/html"`,
    };
  };
}
