/*
 * The system on a Sentinel-watched Redis (one master, one replica, three
 * Sentinels): every service follows the master the Sentinels name
 * (REDIS_SENTINELS, REDIS_SENTINEL_NAME). A failover drill kills the master
 * in the middle of a burst of live shop requests.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../src/client.js';
import { startDrillSystem, type DrillSystem } from '../src/drill-system.js';
import { failoverSummary, killSentinelMaster, sentinelOf, type FailoverTiming } from '../src/failover.js';
import { runShopRequestDrill } from '../src/shop-request-drill.js';
import { printLogsOnFailure } from './support.js';

let system: DrillSystem;

beforeAll(async () => {
  system = await startDrillSystem({ topology: 'sentinel' });
}, 90_000);

// A killed Redis node comes back (as a replica) once a test's checks are done.
afterEach(async () => {
  await system?.ensureRunning();
});

afterAll(async () => {
  await system?.close();
});

describe('the system on Redis Sentinel', () => {
  it('answers 200 on /readyz of every service', async () => {
    const all = (['catalog', 'shops', 'identity', 'requests', 'mcp', 'intake-worker', 'gateway'] as const).map((n) => system.services[n]);

    const statuses = await Promise.all(all.map(async (s) => (await send(`${s.url}/readyz`, { method: 'GET', headers: {} })).status));

    expect(statuses).toEqual(all.map(() => 200));
  });

  it('loses no accepted request and stores none twice when the master is killed mid-burst', async () => {
    const startedAt = Date.now();
    printLogsOnFailure(system);
    const timing: FailoverTiming = {};
    const masterBefore = await sentinelOf(system).masterPort();

    const report = await runShopRequestDrill(system, {
      name: 'sentinel-master',
      requests: 40,
      intervalMs: 60,
      faultAtMs: 700,
      replicaPromoted: true,
      fault: killSentinelMaster(timing),
    });
    report.problems.push(...system.unexpectedExits(startedAt));
    console.log(`${failoverSummary('sentinel failover, master killed', report, timing)}\n  ${report.summary}\n  log lines at warn and up: ${system.logCounts(startedAt)}`);

    expect(await sentinelOf(system).masterPort()).not.toBe(masterBefore);
    expect(report.problems).toEqual([]);
    expect(report.figures.created).toBe(report.figures.requests);
  });
});
