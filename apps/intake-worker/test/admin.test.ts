import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, type TestWorker } from './support/worker.js';

let testRedis: TestRedis;
let smtp: SmtpSink;
let withUi: TestWorker;
let withoutUi: TestWorker;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

beforeAll(async () => {
  testRedis = await createTestRedis('intake-admin');
  smtp = await startSmtpSink();
  withUi = await startTestWorker(testRedis, { SMTP_URL: smtp.url, ADMIN_USER: 'ops', ADMIN_PASSWORD: 'correct horse battery staple' });
  withoutUi = await startTestWorker(testRedis, { SMTP_URL: smtp.url });
});

afterAll(async () => {
  await withUi?.close();
  await withoutUi?.close();
  await smtp?.close();
  await testRedis?.cleanup();
});

describe('the admin server of the intake worker', () => {
  it('answers /healthz and /readyz', async () => {
    const health = await request(withUi.running.url).get('/healthz');
    const ready = await request(withUi.running.url).get('/readyz');

    expect(health.status).toBe(200);
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('exports job counters, step durations and the queue depth', async () => {
    const job = buildIntakeJob();
    await withUi.queue.pause();
    await withUi.add(buildIntakeJob());
    await withUi.add(buildIntakeJob(), { delay: 60_000 });

    const paused = await request(withUi.running.url).get('/metrics');
    await withUi.queue.obliterate({ force: true });
    await withUi.add(job);
    await withUi.waitForState(job.request_id, 'completed');
    const after = await request(withUi.running.url).get('/metrics');

    expect(paused.text).toMatch(/^intake_queue_depth\{service="intake-worker"\} 2$/m);
    expect(after.text).toMatch(/^intake_jobs_completed_total\{service="intake-worker"\} 1$/m);
    expect(after.text).toMatch(/^intake_step_duration_seconds_count\{[^}]*step="operator"[^}]*\} 1$/m);
    expect(after.text).toMatch(/^intake_queue_depth\{service="intake-worker"\} 0$/m);
  });

  it('serves the queue UI with the admin credentials', async () => {
    const page = await request(withUi.running.url).get('/admin/queues').set('Authorization', basic('ops', 'correct horse battery staple'));
    const api = await request(withUi.running.url).get('/admin/queues/api/queues').set('Authorization', basic('ops', 'correct horse battery staple'));

    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html');
    expect(api.status).toBe(200);
    expect(JSON.stringify(api.body)).toContain('"intake"');
  });

  it.each([
    ['no credentials', undefined],
    ['a wrong password', basic('ops', 'correct horse battery')],
    ['a wrong user', basic('admin', 'correct horse battery staple')],
    ['a malformed header', 'Basic !!!'],
  ])('answers 401 to %s', async (_case, authorization) => {
    const call = request(withUi.running.url).get('/admin/queues/api/queues');
    if (authorization) call.set('Authorization', authorization);

    const response = await call;

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="intake-worker"/);
    expect(response.body.error).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('has no queue UI when no credentials are configured', async () => {
    const response = await request(withoutUi.running.url).get('/admin/queues').set('Authorization', basic('ops', 'x'));

    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });
});
