/*
 * The system on a 3-master + 3-replica Redis Cluster: all seven services as
 * processes with REDIS_CLUSTER_NODES, the main flows through the gateway,
 * readiness and start-up guard rails, clean-up across slots, and two
 * failover drills (the master of the queue's slot, the master of a
 * caller's rate-limit key) killed in the middle of a burst.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { deleteByPattern, keysMatching } from '@msa/test-kit';
import { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { send, sleep } from '../src/client.js';
import { KEY_PREFIX, OPERATOR_EMAIL, startDrillSystem, type DrillSystem } from '../src/drill-system.js';
import { listEntries } from '../src/facts.js';
import { clusterOf, failoverSummary, killClusterMasterOf, type FailoverTiming } from '../src/failover.js';
import type { DrillReport } from '../src/report.js';
import { REPO_ROOT } from '../src/service-process.js';
import { buildShopRequest, runShopRequestDrill, shopRequestIdOf } from '../src/shop-request-drill.js';
import { printLogsOnFailure } from './support.js';

const RATE_LIMIT_PER_MINUTE = 40;
const QUEUE_PREFIX = '{drill:intake}';

let system: DrillSystem;

beforeAll(async () => {
  system = await startDrillSystem({ topology: 'cluster', queuePrefix: QUEUE_PREFIX, env: { gateway: { RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) } } });
}, 90_000);

// A killed Redis node comes back (as a replica) once a test's checks are done.
afterEach(async () => {
  await system?.ensureRunning();
});

afterAll(async () => {
  await system?.close();
});


const get = (url: string, headers: Record<string, string> = {}) => send(url, { method: 'GET', headers });

async function createKey(mode: 'sandbox' | 'live', ip: string) {
  const created = await send(`${system.baseUrl}/v1/keys`, { headers: { 'x-forwarded-for': ip }, body: { name: `Cluster ${mode} agent`, email: 'cluster@example.org', mode } });
  expect(created.status).toBe(201);
  return created.body as { api_key: string; client_id: string; client_secret: string };
}

async function readyStatuses(): Promise<Record<string, number>> {
  const all = (['catalog', 'shops', 'identity', 'requests', 'mcp', 'intake-worker', 'gateway'] as const).flatMap((n) => system.instances(n));
  const answers = await Promise.all(all.map(async (s) => [s.log.name, (await get(`${s.url}/readyz`)).status] as const));
  return Object.fromEntries(answers);
}

async function waitForMail(requestId: string, timeoutMs = 15_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const count = system.smtp.messages.filter((m) => shopRequestIdOf(m) === requestId && m.rcptTo.includes(OPERATOR_EMAIL)).length;
    if (count > 0 || Date.now() > deadline) return count;
    await sleep(100);
  }
}

/** The request list entries of `requestId`, once there is one: the list step comes after both e-mails. */
async function waitForListEntries(requestId: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entries = (await listEntries(system.redis)).filter((e) => e.requestId === requestId);
    if (entries.length > 0 || Date.now() > deadline) return entries;
    await sleep(100);
  }
}

describe('the system on a Redis Cluster', () => {
  it('answers 200 on /readyz of every service', async () => {
    printLogsOnFailure(system);

    const statuses = await readyStatuses();

    expect(Object.values(statuses).every((s) => s === 200), JSON.stringify(statuses)).toBe(true);
  });

  it('lists the catalog and the shops, creates an API key and answers GET /v1/me with it', async () => {
    printLogsOnFailure(system);

    const products = await get(`${system.baseUrl}/v1/products?q=shirt`);
    const shops = await get(`${system.baseUrl}/v1/shops`);
    const key = await createKey('sandbox', '10.90.0.1');
    const me = await get(`${system.baseUrl}/v1/me`, { authorization: `Bearer ${key.api_key}` });

    expect(products.status).toBe(200);
    expect((products.body?.products as unknown[]).length).toBeGreaterThan(0);
    expect(shops.status).toBe(200);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: key.client_id, mode: 'sandbox', via: 'api_key' });
  });

  it('issues an access token for client credentials that the gateway accepts', async () => {
    printLogsOnFailure(system);
    const key = await createKey('live', '10.90.0.2');

    const token = await send(`${system.baseUrl}/oauth/token`, {
      headers: {},
      body: { grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.client_secret },
    });
    const me = await get(`${system.baseUrl}/v1/me`, { authorization: `Bearer ${String(token.body?.access_token)}` });

    expect(token.status).toBe(200);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: key.client_id, mode: 'live', via: 'oauth' });
  });

  it('stores a sandbox shop request and reads it back without queueing it', async () => {
    printLogsOnFailure(system);
    const key = await createKey('sandbox', '10.90.0.3');
    const auth = { authorization: `Bearer ${key.api_key}` };

    const created = await send(`${system.baseUrl}/sandbox/v1/shop-requests`, { headers: auth, body: buildShopRequest('Cluster sandbox shop', 1) });
    const id = String(created.body?.id);
    const read = await get(`${system.baseUrl}/sandbox/v1/shop-requests/${id}`, auth);
    await sleep(1_000);

    expect(created.status).toBe(201);
    expect(created.body?.sandbox).toBe(true);
    expect(read.status).toBe(200);
    expect(read.body?.id).toBe(id);
    expect(system.smtp.messages.filter((m) => shopRequestIdOf(m) === id)).toEqual([]);
  });

  it('delivers a live shop request to the operator and the request list, and replays it for the same Idempotency-Key', async () => {
    printLogsOnFailure(system);
    const key = await createKey('live', '10.90.0.4');
    const post = () =>
      send(`${system.baseUrl}/v1/shop-requests`, {
        headers: { authorization: `Bearer ${key.api_key}`, 'idempotency-key': 'cluster-live-1' },
        body: buildShopRequest('Cluster live shop', 2),
      });

    const created = await post();
    const replay = await post();
    const id = String(created.body?.id);
    const mails = await waitForMail(id);
    const listed = await waitForListEntries(id);

    expect(created.status).toBe(201);
    expect(created.body?.sandbox).toBe(false);
    expect(replay.status).toBe(201);
    expect(replay.body?.id).toBe(id);
    expect(replay.replayed).toBe(true);
    expect(mails).toBe(1);
    expect(listed).toHaveLength(1);
  });

  it(`answers 429 to the request past RATE_LIMIT_PER_MINUTE (${RATE_LIMIT_PER_MINUTE}) of one caller`, async () => {
    printLogsOnFailure(system);
    const key = await createKey('sandbox', '10.90.0.5');

    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT_PER_MINUTE + 1; i += 1) {
      statuses.push((await get(`${system.baseUrl}/v1/me`, { authorization: `Bearer ${key.api_key}` })).status);
    }

    // POST /v1/keys was the caller's IP, not the key: all of the key's budget is here.
    expect(statuses.filter((s) => s === 200)).toHaveLength(RATE_LIMIT_PER_MINUTE);
    expect(statuses.at(-1)).toBe(429);
  });

  it('deletes keys spread over every master with deleteByPattern', async () => {
    const cluster = clusterOf(system);
    const client = new Cluster(cluster.nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
    try {
      const keys = Array.from({ length: 300 }, (_, i) => `cleanup-test:${i}`);
      await Promise.all(keys.map((k) => client.set(k, '1')));
      const owners = new Set(await Promise.all(keys.slice(0, 30).map((k) => cluster.masterOf(k))));

      const deleted = await deleteByPattern(client, 'cleanup-test:*');

      expect(owners.size).toBe(3);
      expect(deleted).toBe(300);
      expect(await keysMatching(client, 'cleanup-test:*')).toEqual([]);
    } finally {
      client.disconnect();
    }
  });

  it.each(['requests', 'intake-worker'] as const)('refuses to start the %s service with a QUEUE_PREFIX without a hash tag', async (name) => {
    const env = { ...system.envOf(name), QUEUE_PREFIX: 'drill-intake', REQUESTS_PORT: '0', WORKER_PORT: '0' };

    const exit = await runToExit(name, env);

    expect(exit.code).toBe(1);
    expect(exit.stderr).toMatch(/QUEUE_PREFIX: 'drill-intake' has no \{…\} hash tag/);
  });

  it('answers /readyz 503 from the services that need Redis for every route while a master is down, 200 once its replica took over, and keeps the gateway ready throughout', async () => {
    printLogsOnFailure(system);
    const cluster = clusterOf(system);
    const [victim] = await cluster.masters();
    const slot = (await cluster.slotRanges()).find((r) => r.master === victim)!.from;
    // The gateway serves reads without Redis: its readiness is its own, Redis is dependency health.
    const users = (['identity', 'requests', 'intake-worker'] as const).map((n) => system.services[n]);
    const gateway = system.services.gateway;

    await cluster.kill(victim!);
    const during = await Promise.all(users.map((s) => waitForStatus(`${s.url}/readyz`, 503, 10_000)));
    const gatewayDuring = (await get(`${gateway.url}/readyz`)).status;
    await cluster.waitForFailover(victim!, [slot]);
    const after = await Promise.all(users.map((s) => waitForStatus(`${s.url}/readyz`, 200, 15_000)));
    await cluster.restart(victim!);
    const everyService = await readyStatuses();

    expect(during).toEqual([503, 503, 503]);
    expect(gatewayDuring).toBe(200);
    expect(after).toEqual([200, 200, 200]);
    expect(Object.values(everyService).every((s) => s === 200), JSON.stringify(everyService)).toBe(true);
  });
});

describe('failover drills on the Redis Cluster', () => {
  /** Runs a drill, prints its figures and the recovery line. */
  async function failoverDrill(label: string, timing: FailoverTiming, run: () => Promise<DrillReport>): Promise<DrillReport> {
    const startedAt = Date.now();
    printLogsOnFailure(system);
    const report = await run();
    report.problems.push(...system.unexpectedExits(startedAt));
    console.log(`${failoverSummary(label, report, timing)}\n  ${report.summary}\n  log lines at warn and up: ${system.logCounts(startedAt)}`);
    return report;
  }

  it('loses no accepted request and stores none twice when the master of the queue slot is killed mid-burst', async () => {
    const timing: FailoverTiming = {};

    const report = await failoverDrill('cluster failover, {intake} master killed', timing, () =>
      runShopRequestDrill(system, {
        name: 'cluster-queue-master',
        requests: 40,
        intervalMs: 60,
        faultAtMs: 700,
        replicaPromoted: true,
        fault: killClusterMasterOf(() => `${QUEUE_PREFIX}:intake:wait`, timing),
      }),
    );

    expect(report.problems).toEqual([]);
    expect(report.figures.created).toBe(report.figures.requests);
  });

  it("loses no accepted request and stores none twice when the master of a caller's rate-limit key is killed mid-burst", async () => {
    const timing: FailoverTiming = {};

    const report = await failoverDrill('cluster failover, limiter-key master killed', timing, () =>
      runShopRequestDrill(system, {
        name: 'cluster-limiter-master',
        requests: 40,
        intervalMs: 60,
        faultAtMs: 700,
        replicaPromoted: true,
        fault: killClusterMasterOf(async (_, principals) => {
          // A caller whose limiter key lives away from the queue's master, so this case differs from the first.
          const cluster = clusterOf(system);
          const queueMaster = await cluster.masterOf(QUEUE_PREFIX);
          const keys = principals.map((p) => `${KEY_PREFIX}rl:min:p:${p.clientId}`);
          for (const key of keys) if ((await cluster.masterOf(key)) !== queueMaster) return key;
          return keys[0]!;
        }, timing),
      }),
    );

    expect(report.problems).toEqual([]);
    expect(report.figures.created).toBe(report.figures.requests);
  });
});

async function waitForStatus(url: string, wanted: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = 0;
  while (Date.now() < deadline) {
    last = (await get(url)).status;
    if (last === wanted) return last;
    await sleep(100);
  }
  return last;
}

/** Starts one service by hand and waits for it to exit on its own (or kills it after 15 s). */
function runToExit(name: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps', name, 'dist', 'main.js')], { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
