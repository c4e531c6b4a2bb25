/*
 * Fault drills: the real services as processes, a real Redis with AOF and a
 * real SMTP server, a burst of live shop requests (or key creations) through
 * the gateway, and one fault in the middle of it: a SIGKILL, a Redis restart,
 * the mail server gone. The client retries as the API tells it to. Each
 * drill then checks that every 201 was delivered, nothing was stored twice,
 * a key sent again answers the same id, no 500 was seen and the day's quota
 * counted only what was stored, and prints one line of figures.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDrillSystem, type DrillSystem } from '../src/drill-system.js';
import {
  CREDENTIAL_STORED,
  INTAKE_STEP_RECORDED,
  SHOP_REQUEST_STORED,
  killAfterWrite,
  killGatewayMidRequest,
  restartRedisAfterWrite,
  takeSmtpAway,
} from '../src/faults.js';
import { runKeyDrill } from '../src/key-drill.js';
import type { DrillReport } from '../src/report.js';
import { runShopRequestDrill } from '../src/shop-request-drill.js';
import { printLogsOnFailure } from './support.js';

let system: DrillSystem;

beforeAll(async () => {
  system = await startDrillSystem();
});

afterEach(async () => {
  await system?.ensureRunning();
});

afterAll(async () => {
  await system?.close();
});

/** Runs a drill, prints its figures, and on failure every process's output since it began. */
async function drill(run: () => Promise<DrillReport>): Promise<DrillReport> {
  const startedAt = Date.now();
  printLogsOnFailure(system);
  const report = await run();
  // A crash, or another program stopping a service, would make the drill's figures meaningless.
  report.problems.push(...system.unexpectedExits(startedAt));
  console.log(`${report.summary}\n  log lines at warn and up: ${system.logCounts(startedAt)}`);
  return report;
}

describe('fault drills', () => {
  it('loses nothing, stores nothing twice and replays every key when the requests service is killed mid-burst', async () => {
    const report = await drill(() =>
      runShopRequestDrill(system, {
        name: 'requests-killed',
        requests: 40,
        intervalMs: 60,
        faultAtMs: 700,
        fault: killAfterWrite('requests', SHOP_REQUEST_STORED, 1_000),
      }),
    );

    expect(report.problems).toEqual([]);
  });

  it('delivers every accepted request when the intake worker is killed mid-burst', async () => {
    const report = await drill(() =>
      runShopRequestDrill(system, {
        name: 'worker-killed',
        requests: 40,
        intervalMs: 60,
        faultAtMs: 700,
        fault: killAfterWrite('intake-worker', INTAKE_STEP_RECORDED, 1_000),
      }),
    );

    expect(report.problems).toEqual([]);
  });

  it('loses nothing, stores nothing twice and replays every key when the gateway is killed mid-burst', async () => {
    const report = await drill(() =>
      runShopRequestDrill(system, {
        name: 'gateway-killed',
        requests: 40,
        intervalMs: 60,
        faultAtMs: 700,
        fault: killGatewayMidRequest(1_000),
      }),
    );

    expect(report.problems).toEqual([]);
  });

  it('answers no 500 and loses nothing when Redis restarts mid-burst', async () => {
    const report = await drill(() =>
      runShopRequestDrill(system, {
        name: 'redis-restarted',
        requests: 40,
        intervalMs: 60,
        faultAtMs: 700,
        fault: restartRedisAfterWrite(1_500),
      }),
    );

    expect(report.problems).toEqual([]);
  });

  it('delivers every accepted request once the SMTP server is back after an outage mid-burst', async () => {
    const report = await drill(() =>
      runShopRequestDrill(system, {
        name: 'smtp-away',
        requests: 40,
        intervalMs: 60,
        faultAtMs: 500,
        fault: takeSmtpAway(3_000),
      }),
    );

    expect(report.problems).toEqual([]);
  });

  it('never hands out a second set of credentials, nor one set\'s secrets twice, for one Idempotency-Key when identity is killed mid-burst', async () => {
    const report = await drill(() =>
      runKeyDrill(system, {
        name: 'identity-killed',
        keys: 24,
        intervalMs: 60,
        faultAtMs: 500,
        fault: killAfterWrite('identity', CREDENTIAL_STORED, 1_000),
      }),
    );

    expect(report.problems).toEqual([]);
  });
});
