import { Router } from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appError, createAdminApp, createMetrics, createServiceApp, finishServiceApp, methodNotAllowed, type Metrics } from '../src/index.js';
import { BASE_URL, captureLogs, eventually, type CapturedLogs, type LogLine } from './support.js';

const ThingBody = z.strictObject({
  organization: z.strictObject({ email: z.email('must be a valid e-mail address') }),
  products: z.array(z.strictObject({ designs: z.array(z.strictObject({ width_cm: z.number().min(1).max(40) })) })),
});

const validThing = { organization: { email: 'erika@example.de' }, products: [{ designs: [{ width_cm: 10 }] }] };

function buildApp(logs: CapturedLogs, state: { ready: boolean }, metrics: Metrics = createMetrics('shops')) {
  const env = { publicBaseUrl: BASE_URL };
  const app = createServiceApp({
    service: 'shops',
    logger: logs.logger,
    publicBaseUrl: BASE_URL,
    metrics,
    ready: async () => {
      if (!state.ready) throw new Error('redis does not answer');
    },
  });
  const router = Router();
  router
    .route('/v1/things')
    .get((_req, res) => {
      res.json({ things: [] });
    })
    .post((req, res) => {
      res.status(201).json(ThingBody.parse(req.body));
    })
    .all(methodNotAllowed(env, ['GET', 'POST']));
  router.get('/v1/things/:id', (req, res) => {
    res.json({ id: req.params.id });
  });
  router.get('/v1/missing', () => {
    throw appError('product_not_found', "No product with handle 'hoodie'.");
  });
  router.get('/v1/boom', async () => {
    await Promise.resolve();
    throw new Error('connect ECONNREFUSED redis://:hunter2@10.0.0.7:6379');
  });
  router.get('/v1/whoami', (req, res) => {
    req.log.info('handled');
    res.json({ id: req.id, traceparent: req.traceparent });
  });
  app.use(router);
  const shops = Router();
  shops.get('/:slug', (req, res) => {
    res.json({ slug: req.params.slug });
  });
  app.use('/v1/shops', shops);
  return finishServiceApp(app, { logger: logs.logger, publicBaseUrl: BASE_URL });
}

function expectEnvelope(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error).toMatchObject({
    code,
    status,
    message: expect.any(String),
    hint: expect.any(String),
    docs: `${BASE_URL}/developers#${code}`,
    openapi: `${BASE_URL}/openapi.json`,
  });
}

describe('createServiceApp + finishServiceApp', () => {
  let logs: CapturedLogs;
  let state: { ready: boolean };
  let app: ReturnType<typeof buildApp>;

  beforeEach(() => {
    logs = captureLogs();
    state = { ready: true };
    app = buildApp(logs, state);
  });

  describe('error envelopes', () => {
    it('answers an unknown route with the 404 envelope in JSON, never HTML', async () => {
      const res = await request(app).get('/v1/nothing-here').set('Accept', 'text/html');

      expectEnvelope(res, 404, 'not_found');
      expect(res.text).not.toMatch(/<html|<pre>/i);
    });

    it('answers an unknown POST route with the 404 envelope', async () => {
      const res = await request(app).post('/v1/nothing-here').send({ a: 1 });

      expectEnvelope(res, 404, 'not_found');
    });

    it('answers a method the route does not have with 405 and Allow', async () => {
      const res = await request(app).delete('/v1/things');

      expectEnvelope(res, 405, 'method_not_allowed');
      expect(res.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
    });

    it('answers OPTIONS with 204 and Allow', async () => {
      const res = await request(app).options('/v1/things');

      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('GET, POST, HEAD, OPTIONS');
    });

    it('answers a 101 kB body with 413', async () => {
      const body = JSON.stringify({ notes: 'x'.repeat(101 * 1024) });

      const res = await request(app).post('/v1/things').set('Content-Type', 'application/json').send(body);

      expectEnvelope(res, 413, 'payload_too_large');
    });

    it('accepts a body just under 100 kB', async () => {
      const padding = 'x'.repeat(99 * 1024);

      const res = await request(app)
        .post('/v1/things')
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ ...validThing, padding }));

      // Parsed, then refused by the schema for the unknown field: the size passed.
      expectEnvelope(res, 422, 'validation_failed');
      expect(res.body.error.fields).toEqual([{ field: 'padding', message: 'unknown field' }]);
    });

    it('answers a text/plain POST with 415', async () => {
      const res = await request(app).post('/v1/things').set('Content-Type', 'text/plain').send('hello');

      expectEnvelope(res, 415, 'unsupported_media_type');
    });

    it('answers malformed JSON with 400 invalid_json', async () => {
      const res = await request(app).post('/v1/things').set('Content-Type', 'application/json').send('{"organization": ');

      expectEnvelope(res, 400, 'invalid_json');
    });

    it('turns a ZodError into 422 validation_failed with one dotted field per problem', async () => {
      const body = {
        organization: { email: 'nope' },
        products: [{ designs: [{ width_cm: 10 }, { width_cm: 41, colour: 'red' }] }],
      };

      const res = await request(app).post('/v1/things').send(body);

      expectEnvelope(res, 422, 'validation_failed');
      expect(res.body.error.fields).toEqual([
        { field: 'organization.email', message: 'must be a valid e-mail address' },
        { field: 'products.0.designs.1.width_cm', message: expect.any(String) },
        { field: 'products.0.designs.1.colour', message: 'unknown field' },
      ]);
    });

    it('answers a valid body', async () => {
      const res = await request(app).post('/v1/things').send(validThing);

      expect(res.status).toBe(201);
      expect(res.body).toEqual(validThing);
    });

    it('answers a path parameter that is not validly percent-encoded with 400, not 500', async () => {
      const res = await request(app).get('/v1/things/%E0%A4%A');

      expectEnvelope(res, 400, 'invalid_request');
      await eventually(() => logs.lines.find((l) => l.msg === 'request'), 'the request log line');
      expect(logs.lines.filter((l) => l.level === 'error')).toEqual([]);
    });

    it('answers a thrown AppError with its code and status', async () => {
      const res = await request(app).get('/v1/missing');

      expectEnvelope(res, 404, 'product_not_found');
      expect(res.body.error.message).toBe("No product with handle 'hoodie'.");
    });

    it('answers a thrown plain Error with a 500 that reveals nothing and logs the error', async () => {
      const res = await request(app).get('/v1/boom').set('X-Request-Id', 'boom-1');

      expectEnvelope(res, 500, 'internal_error');
      expect(res.text).not.toContain('hunter2');
      expect(res.text).not.toContain('ECONNREFUSED');
      expect(res.text).not.toContain('at ');
      const line = await eventually(() => logs.lines.find((l) => l.msg === 'unhandled error'), 'the error log line');
      expect(line).toMatchObject({ level: 'error', service: 'test', requestId: 'boom-1' });
      const err = line.err as { message: string; stack: string; type: string };
      expect(err.message).toContain('ECONNREFUSED');
      expect(err.stack).toContain('app.test.ts');
    });
  });

  describe('X-Request-Id', () => {
    it('keeps a sane caller id, echoes it and puts it on every log line of the request', async () => {
      const res = await request(app).get('/v1/whoami').set('X-Request-Id', 'agent-run-42.7');

      expect(res.headers['x-request-id']).toBe('agent-run-42.7');
      expect(res.body.id).toBe('agent-run-42.7');
      const requestLine = await eventually(
        () => logs.lines.find((l) => l.msg === 'request' && l.path === '/v1/whoami'),
        'the request log line',
      );
      const handled = logs.lines.find((l) => l.msg === 'handled');
      expect(handled?.requestId).toBe('agent-run-42.7');
      expect(requestLine).toMatchObject({ requestId: 'agent-run-42.7', status: 200, method: 'GET' });
    });

    it.each([
      ['longer than 128 characters', 'a'.repeat(129)],
      ['with markup', '<script>alert(1)</script>'],
      ['with spaces', 'id; DROP TABLE requests'],
    ])('replaces a caller id %s by a new one, used on the response and the logs', async (_what, id) => {
      const res = await request(app).get('/v1/whoami').set('X-Request-Id', id);

      const echoed = res.headers['x-request-id'] as string;
      expect(echoed).not.toBe(id);
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.id).toBe(echoed);
      const line = await eventually(() => logs.lines.find((l: LogLine) => l.msg === 'request'), 'the request log line');
      expect(line.requestId).toBe(echoed);
      expect(logs.text()).not.toContain(id);
    });

    it('makes an id when the caller sends none', async () => {
      const res = await request(app).get('/v1/whoami');

      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('sets an id on error responses too', async () => {
      const res = await request(app).get('/v1/nothing-here').set('X-Request-Id', 'lost-1');

      expect(res.headers['x-request-id']).toBe('lost-1');
    });

    it('continues the caller trace with a new span', async () => {
      const res = await request(app)
        .get('/v1/whoami')
        .set('traceparent', '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');

      expect(res.body.traceparent).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
      expect(res.body.traceparent).not.toContain('00f067aa0ba902b7');
    });
  });

  describe('health', () => {
    it('answers /healthz', async () => {
      const res = await request(app).get('/healthz');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('answers /readyz with 200 while ready() resolves', async () => {
      const res = await request(app).get('/readyz');

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ready' });
    });

    it('answers /readyz with a 503 envelope when ready() throws, and logs why', async () => {
      state.ready = false;

      const res = await request(app).get('/readyz');

      expect(res.status).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.error).toMatchObject({ code: 'service_unavailable', status: 503 });
      expect(res.text).not.toContain('redis does not answer');
      const line = await eventually(() => logs.lines.find((l) => l.msg === 'not ready'), 'the not-ready log line');
      expect((line.err as { message: string }).message).toBe('redis does not answer');
    });
  });

  describe('/metrics', () => {
    let metrics: Metrics;
    let admin: ReturnType<typeof createAdminApp>;

    beforeEach(() => {
      metrics = createMetrics('shops');
      app = buildApp(logs, state, metrics);
      admin = createAdminApp(metrics, { publicBaseUrl: BASE_URL, logger: logs.logger });
    });

    it('is not served on the service port', async () => {
      const res = await request(app).get('/metrics');

      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    });

    it('exposes http_request_duration_seconds by method, route pattern and status on the admin app', async () => {
      await request(app).get('/v1/things/abc-123');
      await request(app).get('/v1/nothing-here/xyz-987');
      await request(app).get('/v1/shops/tsv-musterstadt');

      const res = await request(admin).get('/metrics');

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
      expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*method="GET"[^}]*route="\/v1\/things\/:id"[^}]*status="200"/);
      expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/v1\/shops\/:slug"[^}]*status="200"/);
      expect(res.text).toMatch(/http_request_duration_seconds_count\{[^}]*status="404"/);
      // Raw paths would make one series per id.
      expect(res.text).not.toContain('abc-123');
      expect(res.text).not.toContain('xyz-987');
      expect(res.text).not.toContain('tsv-musterstadt');
    });

    it('labels every series with the service', async () => {
      const res = await request(admin).get('/metrics');

      expect(res.text).toMatch(/process_cpu_user_seconds_total\{service="shops"\}/);
    });

    it('answers unknown admin paths with the JSON 404 envelope', async () => {
      const res = await request(admin).get('/admin');

      expectEnvelope(res, 404, 'not_found');
    });
  });
});

describe('createLogger', () => {
  it('redacts credentials wherever a caller puts them', () => {
    const logs = captureLogs('info');
    const secrets = {
      bearer: 'Bearer msa_live_AAAAsecretBearerValue',
      apiKey: 'msa_test_BBBBsecretApiKeyValue',
      clientSecret: 'CCCCsecretClientSecretValue',
      headerKey: 'msa_live_DDDDsecretHeaderKey',
      internal: 'eyJhbGciOiJIUzI1NiJ9.EEEEsecretInternal',
    };

    logs.logger.info({ req: { headers: { authorization: secrets.bearer, 'x-api-key': secrets.headerKey, 'x-internal-auth': secrets.internal } } }, 'in');
    logs.logger.info({ headers: { authorization: secrets.bearer, 'x-api-key': secrets.headerKey } }, 'upstream');
    logs.logger.info({ authorization: secrets.bearer, api_key: secrets.apiKey, client_secret: secrets.clientSecret }, 'flat');
    logs.logger.info({ body: { api_key: secrets.apiKey, client_secret: secrets.clientSecret } }, 'nested');

    const text = logs.text();
    for (const secret of Object.values(secrets)) expect(text).not.toContain(secret.replace('Bearer ', ''));
    expect(text).toContain('[redacted]');
    expect(logs.lines).toHaveLength(4);
    expect(logs.lines[0]).toMatchObject({ level: 'info', service: 'test', msg: 'in' });
  });

  it('keeps the fields that are not secrets', () => {
    const logs = captureLogs('info');

    logs.logger.info({ client_id: 'msa_client_0123', scopes: ['catalog:read'] }, 'key created');

    expect(logs.lines[0]).toMatchObject({ client_id: 'msa_client_0123', scopes: ['catalog:read'] });
  });
});
