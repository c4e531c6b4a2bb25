/*
 * Slow uploads: the system as processes, and the attack of
 * src/slow-uploads.mjs: 300 uploads trickling their bodies, reopened as the
 * gateway closes them, while another caller reads the catalog and takes
 * tokens. Its reads and tokens must all answer 200, each within
 * SLOW_UPLOADS.readDeadlineMs, where the uploads once held another key's
 * read for 25 s. How fast they answer (p99 during against p99 before) is
 * printed here and judged by `pnpm bench` (budget 5), which runs the same
 * attack: tests never assert timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDrillSystem, type DrillSystem } from '../src/drill-system.js';
import { p99, SLOW_UPLOADS, slowUploadAttack } from '../src/slow-uploads.mjs';
import { printLogsOnFailure } from './support.js';

let system: DrillSystem;

beforeAll(async () => {
  system = await startDrillSystem();
});

afterAll(async () => {
  await system?.close();
});

describe('slow uploads', () => {
  it(`leave another caller's catalog reads and /oauth/token answering 200, each within ${SLOW_UPLOADS.readDeadlineMs / 1000} s, while ${SLOW_UPLOADS.uploads} slow uploads run`, async () => {
    printLogsOnFailure(system);

    const { baseline, during, tokens, tally } = await slowUploadAttack(system.baseUrl);

    console.log(
      `slow-uploads: reads ${baseline.length} before (p99 ${p99(baseline).toFixed(1)} ms), ${during.length} during (p99 ${p99(during).toFixed(1)} ms, slowest ${Math.max(...during.map((r) => r.ms)).toFixed(1)} ms); ` +
        `uploads by status ${JSON.stringify(Object.fromEntries(tally))}; tokens ${JSON.stringify(tokens)}`,
    );
    expect(baseline.every((r) => r.status === 200)).toBe(true);
    expect(during.length).toBeGreaterThan(0);
    expect(during.filter((r) => r.status !== 200)).toEqual([]);
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.every((s) => s === 200)).toBe(true);
    // The attack ran: uploads past the caps were refused at once, those admitted were cut at the body deadline.
    expect(tally.get(429) ?? 0).toBeGreaterThan(0);
    expect(tally.get(408) ?? 0).toBeGreaterThan(0);
    expect(system.unexpectedExits(0)).toEqual([]);
  });
});
