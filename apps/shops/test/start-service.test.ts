import type { RunningService } from '@msa/service-kit';
import { internalHeaders } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../src/server.js';
import { buildConfig } from './build-shops.js';

let running: RunningService;

beforeAll(async () => {
  running = await startService(buildConfig({ LOG_LEVEL: 'silent' }));
});

afterAll(async () => {
  await running.close();
});

describe('startService', () => {
  it('listens on a free port and answers over real HTTP', async () => {
    const res = await fetch(`${running.url}/v1/shops?category=handwerker`, { headers: internalHeaders('shops') });

    expect(running.port).toBeGreaterThan(0);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { count: number }).count).toBeGreaterThanOrEqual(2);
  });

  it('answers /readyz once the shop list is loaded', async () => {
    expect((await fetch(`${running.url}/readyz`)).status).toBe(200);
  });
});
