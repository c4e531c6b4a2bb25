import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_FAILURES_PER_ADDRESS } from '../src/queue-ui-server.js';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, type TestWorker } from './support/worker.js';

let testRedis: TestRedis;
let smtp: SmtpSink;
let withUi: TestWorker;
let withoutUi: TestWorker;
/** A worker whose login counters no other test touches. */
let guessedAt: TestWorker;
let guessedRedis: TestRedis;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const OPS = basic('ops', 'correct horse battery staple');

beforeAll(async () => {
  testRedis = await createTestRedis('intake-admin');
  smtp = await startSmtpSink();
  const ui = { ADMIN_USER: 'ops', ADMIN_PASSWORD: 'correct horse battery staple', QUEUE_UI_PORT: '0' };
  withUi = await startTestWorker(testRedis, { SMTP_URL: smtp.url, BIND_ADDRESS: '0.0.0.0', ...ui });
  withoutUi = await startTestWorker(testRedis, { SMTP_URL: smtp.url });
  guessedRedis = await createTestRedis('intake-admin-guessed');
  guessedAt = await startTestWorker(guessedRedis, { SMTP_URL: smtp.url, ...ui });
});

afterAll(async () => {
  await withUi?.close();
  await withoutUi?.close();
  await guessedAt?.close();
  await guessedRedis?.cleanup();
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

  it('listens on 127.0.0.1 by default, apart from the admin port on the pod network', async () => {
    const ui = new URL(withUi.running.queueUiUrl!);

    expect(withUi.config.QUEUE_UI_HOST).toBe('127.0.0.1');
    expect(ui.hostname).toBe('127.0.0.1');
    expect(ui.port).not.toBe(new URL(withUi.running.url).port);
    const onAdminPort = await request(withUi.running.url).get('/admin/queues').set('Authorization', OPS);
    expect(onAdminPort.status).toBe(404);
  });

  it('serves the queue UI with the admin credentials', async () => {
    const page = await request(withUi.running.queueUiUrl!).get('/admin/queues').set('Authorization', OPS);
    const api = await request(withUi.running.queueUiUrl!).get('/admin/queues/api/queues').set('Authorization', OPS);

    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html');
    expect(api.status).toBe(200);
    expect(JSON.stringify(api.body)).toContain('"intake"');
  });

  it('shows no contact\'s name, e-mail address or phone number in job data', async () => {
    const job = buildIntakeJob();
    await withUi.queue.pause();
    await withUi.add(job);

    const shown = await request(withUi.running.queueUiUrl!).get(`/admin/queues/api/queues/intake/${job.request_id}`).set('Authorization', OPS);
    await withUi.queue.obliterate({ force: true });
    await withUi.queue.resume();

    expect(shown.status).toBe(200);
    expect(shown.body.job.data.request_id).toBe(job.request_id);
    const text = JSON.stringify(shown.body);
    for (const contact of [job.body.organization.contact_name, job.body.organization.email, job.body.organization.phone!]) expect(text).not.toContain(contact);
  });

  it.each([
    ['no credentials', undefined],
    ['a wrong password', basic('ops', 'correct horse battery')],
    ['a wrong user', basic('admin', 'correct horse battery staple')],
    ['a malformed header', 'Basic !!!'],
  ])('answers 401 to %s', async (_case, authorization) => {
    const call = request(withUi.running.queueUiUrl!).get('/admin/queues/api/queues');
    if (authorization) call.set('Authorization', authorization);

    const response = await call;

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm="intake-worker"/);
    expect(response.body.error).toMatchObject({ code: 'unauthorized', status: 401 });
  });

  it('refuses password guessing with 429 after 5 wrong guesses, the right password included until the window ends', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const guess = await request(guessedAt.running.queueUiUrl!).get('/admin/queues/api/queues').set('Authorization', basic('ops', `guess-${i}`));
      statuses.push(guess.status);
    }
    const right = await request(guessedAt.running.queueUiUrl!).get('/admin/queues/api/queues').set('Authorization', OPS);

    expect(statuses.slice(0, LOGIN_FAILURES_PER_ADDRESS)).toEqual(Array(LOGIN_FAILURES_PER_ADDRESS).fill(401));
    expect(statuses.slice(LOGIN_FAILURES_PER_ADDRESS)).toEqual(Array(40 - LOGIN_FAILURES_PER_ADDRESS).fill(429));
    expect(right.status).toBe(429);
    expect(right.body.error.code).toBe('rate_limited');
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses a cross-site text/plain POST to the write API, with the admin credentials a browser would attach', async () => {
    const before = await withUi.queue.count();

    const forged = await request(withUi.running.queueUiUrl!)
      .post('/admin/queues/api/queues/intake/add')
      .set('Authorization', OPS)
      .set('Origin', 'https://evil.example')
      .set('Sec-Fetch-Site', 'cross-site')
      .set('Content-Type', 'text/plain')
      .send('{"name":"intake","data":{"request_id":"req_forged"}}');

    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe('forbidden');
    expect(await withUi.queue.count()).toBe(before);
  });

  it('refuses a text/plain write even without Origin headers, and a write from another origin without a body', async () => {
    const plain = await request(withUi.running.queueUiUrl!).put('/admin/queues/api/queues/intake/pause').set('Authorization', OPS).set('Content-Type', 'text/plain').send('x');
    const crossOrigin = await request(withUi.running.queueUiUrl!).put('/admin/queues/api/queues/intake/pause').set('Authorization', OPS).set('Origin', 'null');

    expect(plain.status).toBe(415);
    expect(crossOrigin.status).toBe(403);
    expect(await withUi.queue.isPaused()).toBe(false);
  });

  it('takes a write from its own page', async () => {
    const origin = new URL(withUi.running.queueUiUrl!).origin;

    const paused = await request(withUi.running.queueUiUrl!)
      .put('/admin/queues/api/queues/intake/pause')
      .set('Authorization', OPS)
      .set('Origin', origin)
      .set('Sec-Fetch-Site', 'same-origin');
    const nowPaused = await withUi.queue.isPaused();
    await withUi.queue.resume();

    expect(paused.status).toBeLessThan(300);
    expect(nowPaused).toBe(true);
  });

  it('does not add jobs or rewrite their data, from its own page either', async () => {
    const origin = new URL(withUi.running.queueUiUrl!).origin;

    const added = await request(withUi.running.queueUiUrl!)
      .post('/admin/queues/api/queues/intake/add')
      .set('Authorization', OPS)
      .set('Origin', origin)
      .send({ name: 'intake', data: {} });

    expect(added.status).toBe(403);
  });

  it('has no queue UI when no credentials are configured', async () => {
    const response = await request(withoutUi.running.url).get('/admin/queues').set('Authorization', basic('ops', 'x'));

    expect(withoutUi.running.queueUiUrl).toBeUndefined();
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('not_found');
  });
});
