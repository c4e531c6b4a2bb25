/**
 * DNS-rebinding protection for /mcp (MCP transport specification): a foreign
 * host name resolved to our address must not reach the tools, so `Host` is
 * always checked against the allowed names. `Origin` is checked as the
 * specification asks (present and invalid: 403), and by default any browser
 * origin is valid: /mcp has no ambient authority (no cookies; every
 * privilege is a bearer token the page must hold itself), so a page on
 * another origin, such as the MCP Inspector or a web host, can do nothing a
 * script outside a browser could not. A list in `allowedOrigins` instead of
 * `*` narrows it to those origins. Non-browser clients send no Origin and pass.
 */
export interface OriginPolicyOptions {
  publicBaseUrl: string;
  /** Outside production, localhost and 127.0.0.1 are allowed too (any port). */
  production: boolean;
  /** `*` (the default: any origin but the opaque `null`), or exact origins (`https://app.example.org`) and any-port patterns (`http://host:*`). */
  allowedOrigins?: readonly string[];
  /** Host names (a port, if given, is ignored). */
  allowedHosts?: readonly string[];
}

export interface OriginPolicy {
  originAllowed(origin: string | undefined): boolean;
  hostAllowed(host: string | undefined): boolean;
}

const LOCAL_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

function hostnameOf(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export const ANY_ORIGIN = '*';

export function createOriginPolicy({ publicBaseUrl, production, allowedOrigins = [ANY_ORIGIN], allowedHosts = [] }: OriginPolicyOptions): OriginPolicy {
  const anyOrigin = allowedOrigins.includes(ANY_ORIGIN);
  const publicUrl = new URL(publicBaseUrl);
  const hosts = new Set<string>([publicUrl.hostname.toLowerCase()]);
  if (!production) for (const h of LOCAL_HOSTNAMES) hosts.add(h);
  for (const h of allowedHosts) {
    const name = hostnameOf(h);
    if (name) hosts.add(name);
  }

  const exactOrigins = new Set<string>([publicUrl.origin]);
  const anyPort: { protocol: string; hostname: string }[] = [];
  for (const o of allowedOrigins) {
    if (o === ANY_ORIGIN) continue;
    const m = /^(https?):\/\/([^/:]+):\*$/i.exec(o);
    if (m) anyPort.push({ protocol: `${m[1]!.toLowerCase()}:`, hostname: m[2]!.toLowerCase() });
    else {
      try {
        exactOrigins.add(new URL(o).origin);
      } catch {
        // A malformed entry allows nothing rather than stopping the service.
      }
    }
  }
  if (!production) {
    for (const hostname of LOCAL_HOSTNAMES) {
      anyPort.push({ protocol: 'http:', hostname }, { protocol: 'https:', hostname });
    }
  }

  return {
    originAllowed(origin) {
      if (origin === undefined || origin === '') return true;
      // Sandboxed frames, file: pages and redirected requests send the opaque "null": no origin to hold to anything.
      if (anyOrigin) return origin !== 'null' && URL.canParse(origin);
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        return false; // includes the opaque origin "null"
      }
      if (exactOrigins.has(url.origin)) return true;
      return anyPort.some((p) => p.protocol === url.protocol && p.hostname === url.hostname.toLowerCase());
    },
    hostAllowed(host) {
      if (!host) return false;
      const name = hostnameOf(host);
      return name !== null && hosts.has(name);
    },
  };
}

/**
 * The host the client asked for. Behind the gateway the `Host` header names
 * this service, so the gateway's `X-Forwarded-Host` (it overwrites any value a
 * client sent) is authoritative; a chain of proxies appends, and the last
 * entry is the one the nearest proxy saw.
 */
export function requestedHost(headers: { host?: string; 'x-forwarded-host'?: string | string[] }): string | undefined {
  const forwarded = headers['x-forwarded-host'];
  const value = Array.isArray(forwarded) ? forwarded[forwarded.length - 1] : forwarded;
  if (value) {
    const last = value.split(',').pop()?.trim();
    if (last) return last;
  }
  return headers.host;
}
