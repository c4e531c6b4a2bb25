import { TEST_BASE_URL, internalHeaders } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningService } from '@msa/service-kit';
import { startService } from '../src/server.js';
import { buildConfig } from './build-catalog.js';

let running: RunningService;

beforeAll(async () => {
  running = await startService(buildConfig({ LOG_LEVEL: 'silent' }));
});

afterAll(async () => {
  await running.close();
});

describe('startService', () => {
  it('listens on a free port and answers over real HTTP', async () => {
    const res = await fetch(`${running.url}/v1/products/bio-t-shirt-unisex`, { headers: internalHeaders('catalog') });

    expect(running.port).toBeGreaterThan(0);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { url: string }).url).toBe(`${TEST_BASE_URL}/v1/products/bio-t-shirt-unisex`);
  });

  it('answers /readyz once the catalog is loaded', async () => {
    const res = await fetch(`${running.url}/readyz`);

    expect(res.status).toBe(200);
  });

  it('exposes Prometheus metrics on the admin port only', async () => {
    const admin = await fetch(`${running.adminUrl}/metrics`);
    const main = await fetch(`${running.url}/metrics`);

    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('http_request_duration_seconds');
    expect(main.status).toBe(401);
    expect(main.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
