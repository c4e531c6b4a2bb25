// What the orchestrators call, called on the running system: /healthz and
// /readyz on every service's port (the probes in docker-compose.yml and
// infra/k8s), /metrics where Prometheus scrapes it, and never /metrics on the
// gateway's public port.
import type { RunningService } from '@msa/service-kit';
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';
import { APPS, envSchemaOf, parseEnv } from './deploy-support.js';

let system: System;
let smtp: SmtpSink;
let worker: RunningService | undefined;

beforeAll(async () => {
  smtp = await startSmtpSink({ mode: 'count' });
  system = await startSystem({ name: 'deploy-probes' });
  // Started here rather than by the harness: it reads the worker's schema the
  // way the deploy tests do, refinements and all.
  const { startService } = (await import('@msa/intake-worker')) as unknown as { startService(config: never): Promise<RunningService> };
  const config = parseEnv(await envSchemaOf('intake-worker'), {
    ...system.env,
    WORKER_PORT: '0',
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Merch-Shop <noreply@merch.test>',
    OPERATOR_EMAIL: 'operator@merch.test',
  });
  worker = await startService(config as never);
});

afterAll(async () => {
  await worker?.close();
  await system?.close();
  await smtp?.close();
});

function urlOf(app: string): string {
  const service = app === 'intake-worker' ? worker : system.services[app];
  if (!service) throw new Error(`${app} did not start`);
  return service.url;
}

/** Where the manifests point Prometheus: the admin port, or the worker's only port. */
function metricsUrlOf(app: string): string {
  if (app === 'intake-worker') return urlOf(app);
  const adminUrl = system.services[app]?.adminUrl;
  if (!adminUrl) throw new Error(`${app} has no admin port`);
  return adminUrl;
}

describe('probes and scrapes on the running system', () => {
  describe.each(APPS)('%s', (app) => {
    it('answers the liveness probe GET /healthz with 200', async () => {
      const res = await fetch(`${urlOf(app)}/healthz`);

      expect(res.status).toBe(200);
    });

    it('answers the readiness probe GET /readyz with 200 once its dependencies answer', async () => {
      const res = await fetch(`${urlOf(app)}/readyz`);

      expect(res.status).toBe(200);
    });

    it('serves Prometheus metrics labelled with its name where the manifests scrape', async () => {
      const res = await fetch(`${metricsUrlOf(app)}/metrics`);

      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/plain');
      expect(await res.text()).toContain(`service="${app}"`);
    });
  });

  it('keeps /metrics off the gateway public port', async () => {
    const res = await fetch(`${system.baseUrl}/metrics`);

    expect(res.status).toBe(404);
  });

  it.each(APPS.filter((app) => app !== 'gateway' && app !== 'intake-worker'))(
    'keeps /metrics of %s behind internal auth on its service port',
    async (app) => {
      const res = await fetch(`${urlOf(app)}/metrics`);

      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    },
  );
});
