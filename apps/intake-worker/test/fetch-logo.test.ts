import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressPolicy } from '../src/logos/address-policy.js';
import { fetchLogo, type LogoFetchOptions } from '../src/logos/fetch-logo.js';
import { PNG_1X1, redirectTo, sendBytes, startLogoServer, streamLargePng, type LogoServer } from './support/logo-server.js';

let server: LogoServer;
let release: () => void = () => undefined;

beforeAll(async () => {
  server = await startLogoServer({
    '/logo.png': sendBytes(PNG_1X1),
    '/hop1': redirectTo('/hop2'),
    '/hop2': redirectTo('/hop3'),
    '/hop3': redirectTo('/logo.png'),
    '/loop0': redirectTo('/loop1'),
    '/loop1': redirectTo('/loop2'),
    '/loop2': redirectTo('/loop3'),
    '/loop3': redirectTo('/logo.png'),
    '/declared-large.png': (_req, res) => {
      res.writeHead(200, { 'content-length': String(5 * 1024 * 1024) });
      res.write(PNG_1X1);
    },
    '/streamed-large.png': streamLargePng(2 * 1024 * 1024),
    '/slow.png': () => new Promise<void>((resolve) => (release = resolve)),
    '/gone.png': (_req, res) => void res.writeHead(410).end(),
    '/ftp': redirectTo('ftp://127.0.0.1/logo.png'),
  });
});

afterAll(async () => {
  release();
  await server?.close();
});

const open: LogoFetchOptions = { policy: createAddressPolicy({ allowPrivate: true }), maxBytes: 1024 * 1024, timeoutMs: 2_000 };

describe('fetchLogo', () => {
  it('downloads a PNG and names its type by the bytes', async () => {
    const result = await fetchLogo(server.url('/logo.png'), open);

    expect(result).toMatchObject({ ok: true, type: 'png', contentType: 'image/png' });
    expect(result.ok && result.data.equals(PNG_1X1)).toBe(true);
  });

  it('follows up to three redirects', async () => {
    const result = await fetchLogo(server.url('/hop1'), open);

    expect(result).toMatchObject({ ok: true, finalUrl: server.url('/logo.png') });
  });

  it('refuses a fourth redirect', async () => {
    const result = await fetchLogo(server.url('/loop0'), open);

    expect(result).toMatchObject({ ok: false, reason: 'too_many_redirects' });
  });

  it('refuses a body announced larger than the cap without reading it', async () => {
    const result = await fetchLogo(server.url('/declared-large.png'), open);

    expect(result).toMatchObject({ ok: false, reason: 'too_large' });
  });

  it('stops reading a body that grows past the cap', async () => {
    const result = await fetchLogo(server.url('/streamed-large.png'), open);

    expect(result).toMatchObject({ ok: false, reason: 'too_large' });
  });

  it('gives up when the answer does not come within the time limit', async () => {
    const result = await fetchLogo(server.url('/slow.png'), { ...open, timeoutMs: 300 });

    expect(result).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('reports an error status', async () => {
    const result = await fetchLogo(server.url('/gone.png'), open);

    expect(result).toMatchObject({ ok: false, reason: 'http_status', detail: 'HTTP 410' });
  });

  it.each(['ftp://127.0.0.1/logo.png', 'file:///etc/passwd', 'not a url'])('refuses %s', async (url) => {
    const result = await fetchLogo(url, open);

    expect(result).toMatchObject({ ok: false, reason: 'invalid_url' });
  });

  it('refuses a redirect to another scheme', async () => {
    const result = await fetchLogo(server.url('/ftp'), open);

    expect(result).toMatchObject({ ok: false, reason: 'invalid_url' });
  });

  it('connects to the checked address and keeps the name in the Host header', async () => {
    const resolve = async () => [{ address: '127.0.0.1', family: 4 }];
    const policy = createAddressPolicy({ allowPrivate: false, allowed: [] });
    const allowLoopback = { refusal: (a: string) => (a === '127.0.0.1' ? null : policy.refusal(a)) };

    const result = await fetchLogo(`http://logos.example.test:${server.port}/logo.png`, { ...open, policy: allowLoopback, resolve });

    expect(result).toMatchObject({ ok: true });
    expect(server.hosts.at(-1)).toBe(`logos.example.test:${server.port}`);
  });

  it('refuses a name when any of its addresses is private', async () => {
    const resolve = async () => [
      { address: '93.184.215.14', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const before = server.requests.length;

    const result = await fetchLogo('http://mixed.example.test/logo.png', {
      ...open,
      policy: createAddressPolicy({ allowPrivate: false }),
      resolve,
    });

    expect(result).toMatchObject({ ok: false, reason: 'forbidden_address', detail: 'address 10.0.0.5 is not public (private)' });
    expect(server.requests.length).toBe(before);
  });

  it('refuses an IPv4-mapped IPv6 literal of loopback', async () => {
    const result = await fetchLogo(`http://[::ffff:127.0.0.1]:${server.port}/logo.png`, {
      ...open,
      policy: createAddressPolicy({ allowPrivate: false }),
    });

    expect(result).toMatchObject({ ok: false, reason: 'forbidden_address' });
  });

  it('refuses loopback written as a decimal number', async () => {
    const result = await fetchLogo(`http://2130706433:${server.port}/logo.png`, { ...open, policy: createAddressPolicy({ allowPrivate: false }) });

    expect(result).toMatchObject({ ok: false, reason: 'forbidden_address', detail: 'address 127.0.0.1 is not public (loopback)' });
  });
});
