/*
 * Downloads one caller-supplied logo without letting the caller steer the
 * worker into the private network: the host name is resolved here, every
 * address is checked, and the connection is pinned to the checked address
 * (a second DNS answer between check and connect cannot swap it). Each
 * redirect goes through the same checks. The body is streamed against a byte
 * cap and the whole download, redirects included, has one time limit.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy.js';
import { LOGO_CONTENT_TYPES, sniffLogoType, type LogoType } from './magic-bytes.js';

export const MAX_REDIRECTS = 3;

export interface LogoFetchOptions {
  policy: AddressPolicy;
  maxBytes: number;
  timeoutMs: number;
  /** Resolves a host name to every address (tests of the checks pass their own). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export type LogoFetchResult =
  | { ok: true; data: Buffer; type: LogoType; contentType: string; finalUrl: string }
  | { ok: false; reason: LogoRefusal; detail: string };

/** Why a logo is not attached; the operator e-mail turns it into a German note. */
export type LogoRefusal = 'invalid_url' | 'forbidden_address' | 'too_large' | 'not_an_image' | 'http_status' | 'too_many_redirects' | 'timeout' | 'network';

class Refused extends Error {
  constructor(
    readonly reason: LogoRefusal,
    detail: string,
  ) {
    super(detail);
  }
}

const defaultResolve = (host: string) => dnsLookup(host, { all: true, verbatim: true });

export async function fetchLogo(url: string, opts: LogoFetchOptions): Promise<LogoFetchResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  try {
    const deadline = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new Refused('timeout', `no answer within ${opts.timeoutMs} ms`)));
    });
    // Keeps a rejection after the race has settled from surfacing as unhandled.
    deadline.catch(() => undefined);
    const result = await Promise.race([download(url, opts, controller.signal), deadline]);
    return result;
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.reason, detail: err.message };
    if (controller.signal.aborted) return { ok: false, reason: 'timeout', detail: `no answer within ${opts.timeoutMs} ms` };
    return { ok: false, reason: 'network', detail: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

async function download(start: string, opts: LogoFetchOptions, signal: AbortSignal): Promise<LogoFetchResult> {
  let current = parseHttpUrl(start);
  for (let redirects = 0; ; redirects++) {
    const address = await checkedAddress(current, opts);
    const response = await request(current, address, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.destroy();
      if (redirects >= MAX_REDIRECTS) throw new Refused('too_many_redirects', `more than ${MAX_REDIRECTS} redirects`);
      current = parseHttpUrl(new URL(response.headers.location, current).href);
      continue;
    }
    if (status !== 200) {
      response.destroy();
      throw new Refused('http_status', `HTTP ${status}`);
    }
    const data = await readCapped(response, opts.maxBytes);
    const type = sniffLogoType(data);
    if (!type) throw new Refused('not_an_image', 'not a PNG, JPEG or SVG file');
    return { ok: true, data, type, contentType: LOGO_CONTENT_TYPES[type], finalUrl: current.href };
  }
}

function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Refused('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Refused('invalid_url', `${url.protocol} is not http(s)`);
  return url;
}

interface Resolved {
  address: string;
  family: 4 | 6;
}

/** Every address the name resolves to must pass; the first is the one connected to. */
async function checkedAddress(url: URL, opts: LogoFetchOptions): Promise<Resolved> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (opts.resolve ?? defaultResolve)(host);
    } catch (err) {
      throw new Refused('network', `host ${host} not found (${(err as NodeJS.ErrnoException).code ?? 'DNS error'})`);
    }
  }
  if (addresses.length === 0) throw new Refused('network', `host ${host} has no address`);
  for (const { address } of addresses) {
    const refusal = opts.policy.refusal(address);
    if (refusal) throw new Refused('forbidden_address', refusal);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

function request(url: URL, pinned: Resolved, signal: AbortSignal): Promise<http.IncomingMessage> {
  // The socket goes to the address checked above whatever the resolver says
  // now; Host header and TLS name (SNI, certificate) stay the URL's host.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'GET',
        lookup,
        agent: false,
        signal,
        headers: { accept: 'image/png, image/jpeg, image/svg+xml', 'user-agent': 'msa-intake-worker (logo download)' },
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

function readCapped(response: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(new Refused('too_large', `larger than ${maxBytes} bytes`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      reject(err);
      response.destroy();
    };
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(new Refused('too_large', `larger than ${maxBytes} bytes`));
      else chunks.push(chunk);
    });
    response.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks));
    });
    response.on('error', fail);
    response.on('close', () => fail(new Error('connection closed before the whole file arrived')));
  });
}
