// @module `fetchPublic(url, { policy, maxBytes, timeoutMs, maxRedirects })`: a GET that checks every resolved address against the policy, pins the connection to it and re-checks each redirect; re-exports `address-policy`
/*
 * A GET of a caller-supplied URL that cannot be steered into the private
 * network: the host name is resolved here, every address is checked against
 * the policy, and the connection is pinned to the checked address (a second
 * DNS answer between check and connect cannot swap it). Each redirect, where
 * any are allowed, goes through the same checks. The body is streamed against
 * a byte cap and the whole fetch, redirects included, has one time limit.
 * The worker's logo download and identity's Client ID Metadata Documents use it.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import type { AddressPolicy } from './address-policy.js';

export * from './address-policy.js';

export interface PublicFetchOptions {
  policy: AddressPolicy;
  maxBytes: number;
  timeoutMs: number;
  /** Redirects followed (each re-checked); past this the fetch is refused. */
  maxRedirects: number;
  headers?: Record<string, string>;
  /** Only these protocols; default http and https. */
  protocols?: readonly string[];
  /** Resolves a host name to every address (tests of the checks pass their own). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export interface PublicFetchResponse {
  body: Buffer;
  headers: http.IncomingHttpHeaders;
  finalUrl: string;
}

export type PublicFetchRefusal = 'invalid_url' | 'forbidden_address' | 'too_large' | 'http_status' | 'too_many_redirects' | 'timeout' | 'network';

export class PublicFetchError extends Error {
  constructor(
    readonly reason: PublicFetchRefusal,
    detail: string,
  ) {
    super(detail);
    this.name = 'PublicFetchError';
  }
}

const defaultResolve = (host: string) => dnsLookup(host, { all: true, verbatim: true });

/** The 200 answer's body, or a PublicFetchError saying why there is none. */
export async function fetchPublic(url: string, opts: PublicFetchOptions): Promise<PublicFetchResponse> {
  const controller = new AbortController();
  const deadlineSignal = AbortSignal.timeout(opts.timeoutMs);
  const onDeadline = () => controller.abort();
  deadlineSignal.addEventListener('abort', onDeadline, { once: true });
  try {
    const deadline = new Promise<never>((_, reject) => {
      controller.signal.addEventListener('abort', () => reject(new PublicFetchError('timeout', `no answer within ${opts.timeoutMs} ms`)));
    });
    // Keeps a rejection after the race has settled from surfacing as unhandled.
    deadline.catch(() => undefined);
    return await Promise.race([download(url, opts, controller.signal), deadline]);
  } catch (err) {
    if (err instanceof PublicFetchError) throw err;
    if (controller.signal.aborted) throw new PublicFetchError('timeout', `no answer within ${opts.timeoutMs} ms`);
    throw new PublicFetchError('network', err instanceof Error ? err.message : String(err));
  } finally {
    deadlineSignal.removeEventListener('abort', onDeadline);
    controller.abort();
  }
}

async function download(start: string, opts: PublicFetchOptions, signal: AbortSignal): Promise<PublicFetchResponse> {
  const protocols = opts.protocols ?? ['http:', 'https:'];
  let current = parseUrl(start, protocols);
  for (let redirects = 0; ; redirects++) {
    const address = await checkedAddress(current, opts);
    const response = await request(current, address, opts.headers ?? {}, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.destroy();
      if (redirects >= opts.maxRedirects) {
        throw new PublicFetchError('too_many_redirects', opts.maxRedirects === 0 ? 'redirects are not followed' : `more than ${opts.maxRedirects} redirects`);
      }
      current = parseUrl(new URL(response.headers.location, current).href, protocols);
      continue;
    }
    if (status !== 200) {
      response.destroy();
      throw new PublicFetchError('http_status', `HTTP ${status}`);
    }
    const body = await readCapped(response, opts.maxBytes);
    return { body, headers: response.headers, finalUrl: current.href };
  }
}

function parseUrl(raw: string, protocols: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PublicFetchError('invalid_url', 'not a valid URL');
  }
  if (!protocols.includes(url.protocol)) throw new PublicFetchError('invalid_url', `${url.protocol} is not ${protocols.join(' or ')}`);
  return url;
}

interface Resolved {
  address: string;
  family: 4 | 6;
}

/** Every address the name resolves to must pass; the first is the one connected to. */
async function checkedAddress(url: URL, opts: PublicFetchOptions): Promise<Resolved> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: { address: string; family: number }[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (opts.resolve ?? defaultResolve)(host);
    } catch (err) {
      throw new PublicFetchError('network', `host ${host} not found (${(err as NodeJS.ErrnoException).code ?? 'DNS error'})`);
    }
  }
  if (addresses.length === 0) throw new PublicFetchError('network', `host ${host} has no address`);
  for (const { address } of addresses) {
    const refusal = opts.policy.refusal(address);
    if (refusal) throw new PublicFetchError('forbidden_address', refusal);
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

function request(url: URL, pinned: Resolved, headers: Record<string, string>, signal: AbortSignal): Promise<http.IncomingMessage> {
  // The socket goes to the address checked above whatever the resolver says
  // now; Host header and TLS name (SNI, certificate) stay the URL's host.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, { method: 'GET', lookup, agent: false, signal, headers }, resolve);
    req.on('error', reject);
    req.end();
  });
}

function readCapped(response: http.IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(new PublicFetchError('too_large', `larger than ${maxBytes} bytes`));
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
      if (size > maxBytes) fail(new PublicFetchError('too_large', `larger than ${maxBytes} bytes`));
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
