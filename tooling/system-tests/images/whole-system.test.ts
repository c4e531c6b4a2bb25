// The whole system from its images (`pnpm test:images`): every service's
// image on one container network with Redis and a mail sink, configured as
// docker-compose.yml configures them (compose-system.ts), driven only through
// the gateway's published port.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImages, declaredServicePorts, restartInBackground, startComposeSystem, type ComposeSystem } from './compose-system.js';

const OPERATOR = 'team@merch-shop.test';
let system: ComposeSystem;
let hostPortsFreeBefore: number[] = [];

function refusedOnHost(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(3000);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

beforeAll(async () => {
  buildImages((line) => process.stdout.write(`${line}\n`));
  // The ports nothing on this machine listens on yet: the system must not change that.
  const candidates = [...declaredServicePorts(), 6379, 1025, 8000];
  hostPortsFreeBefore = (await Promise.all(candidates.map(async (port) => ((await refusedOnHost(port)) ? port : undefined)))).filter((p) => p !== undefined);
  system = await startComposeSystem({
    // The logo host is on the test's private network, which the worker refuses by default.
    extraEnv: (subnet) => ({ 'intake-worker': { LOGO_FETCH_ALLOW_ADDRESSES: subnet } }),
  });
}, 30 * 60_000);

afterAll(() => system?.close());

async function waitUntil<T>(what: string, probe: () => T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The request list, read with the worker image's own CLI inside its container. */
function listEntries(): Record<string, string>[] {
  const out = system.engine(['exec', system.of('intake-worker')[0]!.name, 'node', 'dist/cli/list.js', '--json', '--count', '1000']);
  return out
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as Record<string, string>);
}

const mailsAbout = (id: string) => system.mails().filter((m) => new RegExp(`^Message-ID: <${id}\\.`, 'mi').test(m.raw));

function shopRequest(contactEmail: string, logoUrl?: string) {
  return {
    organization: { name: 'Grundschule am Park', type: 'schule', contact_name: 'Frau Beispiel', email: contactEmail },
    shop_name: 'GS am Park Schulshop',
    products: [{ product: 'Bio T-Shirt Kinder', colors: ['Navy'], designs: [{ position: 'Brust links', width_cm: 8, ...(logoUrl ? { logo_url: logoUrl } : {}) }] }],
    team_size: 120,
  };
}

async function createLiveKey(): Promise<string> {
  const res = await fetch(`${system.baseUrl}/v1/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'images-system-test', email: 'agent@example.org', mode: 'live' }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { api_key: string; mode: string };
  expect(body.mode).toBe('live');
  return body.api_key;
}

/**
 * POST /v1/shop-requests as a careful client does: under an Idempotency-Key,
 * sent again under the same key when no answer or a 502/503 came back.
 */
async function submit(key: string, body: unknown, idempotencyKey: string): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`${system.baseUrl}/v1/shop-requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'idempotency-key': idempotencyKey },
      body: JSON.stringify(body),
    }).catch(() => undefined);
    if ((res && res.status !== 502 && res.status !== 503) || attempt === 5) return res ?? Promise.reject(new Error('no answer from the gateway'));
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

describe('the whole system started from its images', () => {
  it('creates a live key, reads the catalog and delivers a live shop request with its logo by two e-mails and a list entry', async () => {
    const key = await createLiveKey();
    const products = await fetch(`${system.baseUrl}/v1/products?q=${encodeURIComponent('Bio T-Shirt Kinder')}`);
    expect(products.status).toBe(200);
    expect(((await products.json()) as { products: unknown[] }).products.length).toBeGreaterThan(0);

    const created = await submit(key, shopRequest('sekretariat@gs-park.example', 'http://logos:8000/wappen.png'), `images-logo-${Date.now()}`);
    expect(created.status).toBe(201);
    const { id, sandbox } = (await created.json()) as { id: string; sandbox: boolean };
    expect(sandbox).toBe(false);

    const mails = await waitUntil('both e-mails', () => (mailsAbout(id).length >= 2 ? mailsAbout(id) : undefined));
    const entry = await waitUntil('the list entry', () => listEntries().find((e) => e.request_id === id));
    expect(mails).toHaveLength(2);
    const operator = mails.find((m) => m.rcptTo.includes(OPERATOR));
    const contact = mails.find((m) => m.rcptTo.includes('sekretariat@gs-park.example'));
    // A logo that could not be loaded becomes a note instead of an attachment.
    expect(entry.logo_notes ?? '').toBe('');
    expect(operator?.raw).toMatch(/filename="?logo-1-wappen\.png/);
    expect(operator?.raw).toContain(`anfrage-${id}.json`);
    expect(contact?.raw).toContain(id);
    expect(entry).toMatchObject({ shop_name: 'GS am Park Schulshop', organization: 'Grundschule am Park', contact_email: 'sekretariat@gs-park.example' });
  });

  it('delivers every accepted request of a burst exactly once while the worker containers restart', async () => {
    // A live key may make 5 shop requests a day: one key per 5 requests of the burst.
    const keys = [await createLiveKey(), await createLiveKey(), await createLiveKey(), await createLiveKey()];
    const workers = system.of('intake-worker');
    const inspect = (name: string) => JSON.parse(system.engine(['inspect', name]))[0];
    // Where each worker is on the network: a restart keeps it, so peers need not learn it again.
    const placeOf = (name: string) => {
      const { IPAddress, MacAddress } = inspect(name).NetworkSettings.Networks[system.network];
      return `${IPAddress} ${MacAddress}`;
    };
    const startedBefore = workers.map((w) => inspect(w.name).State.StartedAt as string);
    const placedBefore = workers.map((w) => placeOf(w.name));
    // A contact domain of its own per request: one domain takes 20 live requests a day (LIVE_REQUESTS_PER_DOMAIN_PER_DAY).
    const burst = Array.from({ length: 20 }, (_, i) => ({ idempotencyKey: `images-burst-${Date.now()}-${i}`, contact: `sekretariat@burst-${i}.example` }));
    const ids: string[] = [];
    let restart: Promise<number | null> | undefined;
    for (const [i, request] of burst.entries()) {
      // Mid-burst: SIGTERM to both workers (SIGKILL after compose's 15 s grace period), then start again.
      if (i === 5) restart = restartInBackground(workers.map((w) => w.name), 15);
      const key = keys[Math.floor(i / 5)]!;
      const res = await submit(key, shopRequest(request.contact), request.idempotencyKey);
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { id: string }).id);
    }
    expect(await restart).toBe(0);
    expect(new Set(ids).size).toBe(burst.length);

    await waitUntil('every request delivered', () => ids.every((id) => mailsAbout(id).length >= 2) && ids, 120_000);
    const entries = await waitUntil('every list entry', () => {
      const all = listEntries();
      return ids.every((id) => all.some((e) => e.request_id === id)) && all;
    });
    for (const [i, id] of ids.entries()) {
      expect(entries.filter((e) => e.request_id === id)).toHaveLength(1);
      const mails = mailsAbout(id);
      expect(mails.map((m) => m.rcptTo[0]).sort()).toEqual([burst[i]!.contact, OPERATOR].sort());
    }
    const startedAfter = workers.map((w) => inspect(w.name).State.StartedAt as string);
    startedAfter.forEach((after, i) => expect(after).not.toBe(startedBefore[i]));
    expect(workers.map((w) => placeOf(w.name))).toEqual(placedBefore);
  });

  it('publishes only the gateway port, on the loopback address', () => {
    const published = Object.fromEntries(system.containers.map((c) => [c.service === 'intake-worker' ? c.name : c.service, system.engine(['port', c.name]).trim()]));
    const gateway = published.gateway;
    delete published.gateway;

    expect(gateway).toBe(`8080/tcp -> 127.0.0.1:${system.gatewayHostPort}`);
    expect(Object.values(published).every((p) => p === '')).toBe(true);
    expect(Object.keys(published)).toHaveLength(system.containers.length - 1);
  });

  it('answers on the admin and internal ports inside the network, the queue UI only on its loopback, and refuses them all on the host', async () => {
    // Connects to each [host, port]: true, or the last error of five tries.
    const probe = String.raw`
      const net = require('node:net');
      const once = ([host, port]) => new Promise((resolve) => {
        const s = net.connect({ host, port });
        s.setTimeout(5000);
        s.once('connect', () => { s.destroy(); resolve(true); });
        s.once('error', (err) => resolve(err.code));
        s.once('timeout', () => { s.destroy(); resolve('timeout'); });
      });
      const tries = async (target) => {
        let result;
        for (let i = 0; i < 5 && result !== true; i++) {
          if (i) await new Promise((r) => setTimeout(r, 500));
          result = await once(target);
        }
        return result;
      };
      Promise.all(JSON.parse(process.argv[1]).map(tries)).then((r) => console.log(JSON.stringify(r)));`;
    // Each container by its own name, so both worker replicas are reached.
    const checked = system.containers.filter((c) => c.service !== 'mailpit').flatMap((c) => c.ports.map((p) => ({ container: c, port: p.port })));
    const targets = checked.map(({ container, port }) => [container.name, port] as [string, number]);
    const label = ({ container, port }: (typeof checked)[number]) => `${container.name.slice(system.network.length + 1)}:${port}`;
    const inside = JSON.parse(system.engine(['exec', system.sink.name, 'node', '-e', probe, JSON.stringify(targets)])) as (true | string)[];
    const onHost = await Promise.all(hostPortsFreeBefore.map((port) => refusedOnHost(port)));

    // The queue UI listens on its container's loopback only (QUEUE_UI_HOST), reached by port-forward.
    const loopbackOnly = ({ container, port }: (typeof checked)[number]) => container.service === 'intake-worker' && port === 8087;
    const inWorker = JSON.parse(system.engine(['exec', system.of('intake-worker')[0]!.name, 'node', '-e', probe, JSON.stringify([['127.0.0.1', 8087]])])) as (true | string)[];

    expect(Object.fromEntries(checked.map((target, i) => [label(target), inside[i]]))).toEqual(
      Object.fromEntries(checked.map((target) => [label(target), loopbackOnly(target) ? 'ECONNREFUSED' : true])),
    );
    expect(inWorker).toEqual([true]);
    expect(hostPortsFreeBefore.length).toBeGreaterThan(0);
    expect(onHost.every(Boolean)).toBe(true);
  });
});
