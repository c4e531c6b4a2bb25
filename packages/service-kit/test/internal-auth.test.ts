import { CallContext } from '@msa/contracts';
import { Router } from 'express';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createInternalSigner, createServiceApp, finishServiceApp } from '../src/index.js';
import { BASE_URL, SECRET, captureLogs } from './support.js';

const ctx: CallContext = {
  principal: {
    id: 'msa_client_0123456789abcdef',
    name: 'test-agent',
    scopes: ['catalog:read', 'requests:write'],
    mode: 'sandbox',
    tier: 'free',
    via: 'api_key',
  },
  sandbox: true,
  ip: '203.0.113.9',
  request_id: 'req-from-gateway',
};

/** What the token itself carries: no request id, no trace. */
const signedCtx = { version: 2, principal: ctx.principal, sandbox: ctx.sandbox, ip: ctx.ip, request_id: '' };
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

const sign = createInternalSigner(SECRET);

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function buildApp() {
  const { logger } = captureLogs('silent');
  const app = createServiceApp({ service: 'shops', logger, publicBaseUrl: BASE_URL, internalAuthSecret: SECRET });
  const router = Router();
  router.get('/v1/shops', (req, res) => {
    res.json({ ctx: req.ctx });
  });
  app.use(router);
  return finishServiceApp(app, { logger, publicBaseUrl: BASE_URL });
}

async function expectUnauthorized(token: string | undefined) {
  const call = request(buildApp()).get('/v1/shops');
  const res = await (token === undefined ? call : call.set('X-Internal-Auth', token));

  expect(res.status).toBe(401);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body.error).toMatchObject({ code: 'unauthorized', status: 401 });
  expect(res.body).not.toHaveProperty('ctx');
}

describe('internalAuth', () => {
  it('puts the signed context on req.ctx, with the request id and trace of the request', async () => {
    const res = await request(buildApp()).get('/v1/shops').set('X-Internal-Auth', sign('shops', ctx)).set('X-Request-Id', ctx.request_id);

    expect(res.status).toBe(200);
    expect(res.body.ctx).toEqual({ ...ctx, traceparent: expect.stringMatching(TRACEPARENT) });
  });

  it('takes the request id and trace from the headers, so one token serves every request of a principal', async () => {
    const app = buildApp();
    const token = sign('shops', ctx);
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

    const first = await request(app).get('/v1/shops').set('X-Internal-Auth', token).set('X-Request-Id', 'req-a').set('traceparent', traceparent);
    const second = await request(app).get('/v1/shops').set('X-Internal-Auth', sign('shops', { ...ctx, request_id: 'req-b' })).set('X-Request-Id', 'req-b');

    expect(first.body.ctx).toMatchObject({ request_id: 'req-a', traceparent: expect.stringContaining('-4bf92f3577b34da6a3ce929d0e0e4736-') });
    expect(second.body.ctx).toMatchObject({ principal: ctx.principal, sandbox: true, request_id: 'req-b' });
  });

  it('accepts the context of the previous release, which carried the request id and trace inside', async () => {
    const now = Math.floor(Date.now() / 1000);
    const previous = { ...ctx, traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const token = jwt.sign({ ctx: previous, iat: now, exp: now + 60 }, SECRET, { algorithm: 'HS256', audience: 'shops', issuer: 'msa-internal' });

    // That release's gateway sent the same request id and trace in the headers too.
    const res = await request(buildApp()).get('/v1/shops').set('X-Internal-Auth', token).set('X-Request-Id', ctx.request_id).set('traceparent', previous.traceparent);

    expect(res.status).toBe(200);
    expect(res.body.ctx).toMatchObject({ principal: ctx.principal, sandbox: true, ip: ctx.ip, request_id: ctx.request_id });
  });

  it('answers 401 for a context of a later version than it knows', async () => {
    const token = jwt.sign({ ctx: { ...ctx, version: 3 } }, SECRET, { algorithm: 'HS256', audience: 'shops', issuer: 'msa-internal', expiresIn: 60 });

    await expectUnauthorized(token);
  });

  it('answers 401 when the header is missing', async () => {
    await expectUnauthorized(undefined);
  });

  it('answers 401 for a token meant for another service', async () => {
    await expectUnauthorized(sign('catalog', ctx));
  });

  it('answers 401 for an expired token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = jwt.sign({ ctx, iat: now - 120, exp: now - 60 }, SECRET, {
      algorithm: 'HS256',
      audience: 'shops',
      issuer: 'msa-internal',
    });

    await expectUnauthorized(token);
  });

  it('answers 401 for a token signed with another secret', async () => {
    await expectUnauthorized(createInternalSigner('another-secret-of-enough-length-0123456789')('shops', ctx));
  });

  it('answers 401 for an unsigned token (alg none)', async () => {
    const valid = jwt.decode(sign('shops', ctx)) as object;
    const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(valid)}.`;

    await expectUnauthorized(token);
  });

  it('answers 401 for a token whose signature was kept but whose claims were changed', async () => {
    const [header, , signature] = sign('shops', ctx).split('.');
    const forged = jwt.decode(sign('shops', { ...ctx, sandbox: false })) as object;

    await expectUnauthorized(`${header}.${base64url(forged)}.${signature}`);
  });

  it('answers 401 for changed claims under the signature of a token it accepted before', async () => {
    const genuine = sign('shops', ctx);
    const app = buildApp();
    expect((await request(app).get('/v1/shops').set('X-Internal-Auth', genuine)).status).toBe(200);
    const [header, , signature] = genuine.split('.');
    const forged = jwt.decode(sign('shops', { ...ctx, sandbox: false })) as object;

    const res = await request(app).get('/v1/shops').set('X-Internal-Auth', `${header}.${base64url(forged)}.${signature}`);

    expect(res.status).toBe(401);
  });

  it('accepts the same token again, and still only for its audience', async () => {
    const token = sign('shops', ctx);
    const app = buildApp();

    const first = await request(app).get('/v1/shops').set('X-Internal-Auth', token).set('X-Request-Id', ctx.request_id);
    const second = await request(app).get('/v1/shops').set('X-Internal-Auth', token).set('X-Request-Id', ctx.request_id);

    expect(first.body.ctx).toEqual({ ...ctx, traceparent: expect.stringMatching(TRACEPARENT) });
    expect(second.body.ctx).toEqual({ ...ctx, traceparent: expect.stringMatching(TRACEPARENT) });
    const other = createServiceApp({ service: 'catalog', logger: captureLogs('silent').logger, publicBaseUrl: BASE_URL, internalAuthSecret: SECRET });
    expect((await request(finishServiceApp(other, { logger: captureLogs('silent').logger, publicBaseUrl: BASE_URL })).get('/v1/shops').set('X-Internal-Auth', token)).status).toBe(401);
  });

  it('answers 401 for a validly signed token whose context has the wrong shape', async () => {
    const token = jwt.sign({ ctx: { principal: 'admin' } }, SECRET, { algorithm: 'HS256', audience: 'shops', issuer: 'msa-internal', expiresIn: 60 });

    await expectUnauthorized(token);
  });

  it('answers 401 for garbage', async () => {
    await expectUnauthorized('not-a-jwt');
  });

  it('leaves the health routes open', async () => {
    const app = buildApp();

    expect((await request(app).get('/healthz')).status).toBe(200);
    expect((await request(app).get('/readyz')).status).toBe(200);
  });

  it('guards unknown routes too, so they reveal nothing without a token', async () => {
    const res = await request(buildApp()).get('/internal/anything');

    expect(res.status).toBe(401);
  });
});

describe('createInternalSigner', () => {
  it('signs HS256 tokens that live 60 seconds, for the called service, binding principal, sandbox and address', () => {
    const token = sign('requests', ctx);
    const decoded = jwt.decode(token, { complete: true });
    const payload = decoded?.payload as { aud: string; exp: number; iat: number; ctx: CallContext };

    expect(decoded?.header.alg).toBe('HS256');
    expect(payload.aud).toBe('requests');
    expect(payload.exp - payload.iat).toBe(60);
    expect(payload.ctx).toEqual(signedCtx);
  });

  it('writes tokens jsonwebtoken verifies with the shared secret', () => {
    const payload = jwt.verify(sign('requests', ctx), SECRET, { algorithms: ['HS256'], audience: 'requests', issuer: 'msa-internal' }) as { ctx: CallContext };

    expect(payload.ctx).toEqual(signedCtx);
  });

  it('writes a context a service of the previous release accepts: its fields, and a request_id it requires', () => {
    const payload = jwt.decode(sign('requests', ctx)) as { ctx: Record<string, unknown> };

    // That release parsed the token's ctx with the schema CallContext still is.
    expect(CallContext.safeParse(payload.ctx).success).toBe(true);
    expect(payload.ctx.request_id).toBe('');
  });
});
