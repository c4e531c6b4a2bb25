// A bystander beside slow client metadata documents: /oauth/authorize makes
// identity fetch the document its client_id names, and any address that
// never answers serves as one. Those requests go to identity over a pool and
// an in-flight budget of their own, so the token endpoint and key creation
// keep theirs. The real identity service, a document server that accepts
// connections and never answers, and many callers told apart by
// X-Forwarded-For.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { closeServer, listen, type Listening } from '@msa/service-kit';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../src/app.js';
import { BASE, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

const SLOW_DOCUMENTS = 200;
const ADDRESSES = 50;
/** The shared pool to identity, smaller than the slow documents as 256 sockets were against 512 in flight. */
const SHARED_SOCKETS = 64;
/** Against a stall of 6 to 9 s before: answered, not held. */
const ANSWERED_WITHIN_MS = 2_000;

/** Accepts connections and never answers. */
async function startSilentServer(): Promise<{ url: string; open: () => number; close: () => Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined).once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await call();
  return { value, ms: performance.now() - started };
}

describe('gateway: the authorization pages beside the token endpoint', () => {
  let tr: TestRedis;
  let identity: TestIdentity;
  let documents: Awaited<ReturnType<typeof startSilentServer>>;
  let gateway: Listening;

  beforeAll(async () => {
    tr = await createTestRedis('gateway-authorize-pool');
    identity = await startTestIdentity(tr, { CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: 'true' });
    documents = await startSilentServer();
    const app = createApp(
      testGatewayDeps(tr, identity, identity.service.url, { anonymous: 1_000 }, { trustProxy: 'true', upstreamTimeoutMs: 15_000, upstreamSockets: SHARED_SOCKETS }),
    );
    gateway = await listen(app, 0, { host: '127.0.0.1', publicBaseUrl: BASE });
  });

  afterAll(async () => {
    if (gateway) await closeServer(gateway.server, { forceAfterMs: 100 });
    await documents?.close();
    await identity?.close();
    await tr?.cleanup();
  });

  it(`answers a bystander's /oauth/token and POST /v1/keys within ${ANSWERED_WITHIN_MS / 1000} s while ${SLOW_DOCUMENTS} slow documents are in flight`, async () => {
    const bystander = { 'x-forwarded-for': '198.51.100.200' };
    const keyBody = (name: string) => JSON.stringify({ name, email: 'agent@example.org', mode: 'sandbox' });
    const created = await fetch(`${gateway.url}/v1/keys`, { method: 'POST', headers: { ...bystander, 'content-type': 'application/json' }, body: keyBody('bystander') });
    expect(created.status).toBe(201);
    const { client_id, client_secret } = (await created.json()) as { client_id: string; client_secret: string };

    const abort = new AbortController();
    const statuses: number[] = [];
    const authorizations = Array.from({ length: SLOW_DOCUMENTS }, (_, i) => {
      const query = new URLSearchParams({ response_type: 'code', client_id: `${documents.url}/clients/${i}.json`, state: `s${i}` });
      return fetch(`${gateway.url}/oauth/authorize?${query}`, { headers: { 'x-forwarded-for': `203.0.113.${i % ADDRESSES}` }, signal: abort.signal })
        .then((res) => void statuses.push(res.status))
        .catch(() => undefined);
    });
    // The documents are being fetched, and the gateway refuses what its budget cannot hold.
    await vi.waitFor(() => expect(documents.open()).toBeGreaterThan(0), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(statuses).toContain(429), { timeout: 10_000, interval: 20 });

    const token = await timed(() =>
      fetch(`${gateway.url}/oauth/token`, {
        method: 'POST',
        headers: { ...bystander, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
      }),
    );
    const key = await timed(() => fetch(`${gateway.url}/v1/keys`, { method: 'POST', headers: { ...bystander, 'content-type': 'application/json' }, body: keyBody('during') }));
    const stillFetching = documents.open();
    abort.abort();
    await Promise.all(authorizations);

    expect(token.value.status).toBe(200);
    expect(key.value.status).toBe(201);
    expect(token.ms).toBeLessThan(ANSWERED_WITHIN_MS);
    expect(key.ms).toBeLessThan(ANSWERED_WITHIN_MS);
    expect(stillFetching).toBeGreaterThan(0);
  });
});
