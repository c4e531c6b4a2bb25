import { createHash } from 'node:crypto';
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appError, createServiceApp, finishServiceApp, idempotency } from '../src/index.js';
import { BASE_URL, captureLogs, createTestRedis, eventually, type TestRedis } from './support.js';

let t: TestRedis;
let n = 0;
const newKey = () => `key-${Date.now()}-${++n}`;

beforeAll(async () => {
  t = await createTestRedis('idempotency');
});

afterAll(async () => {
  await t.cleanup();
});

interface Handler {
  runs: number;
  arrived: number;
  /** What the next run does instead of answering 201. */
  next: 'ok' | 'throw' | 'rate_limited' | 'unprocessable';
  /** When set, a run waits until this many requests have arrived. */
  waitForArrivals?: number;
  /** When set, a run waits until it is released. */
  hold?: Promise<void>;
}

function buildApp(handler: Handler, waitMs?: number): Express {
  const { logger } = captureLogs('silent');
  const app = createServiceApp({ service: 'requests', logger, publicBaseUrl: BASE_URL });
  const countArrival: RequestHandler = (_req, _res, next) => {
    handler.arrived++;
    next();
  };
  const guard = idempotency({
    redis: t.redis,
    keyPrefix: t.prefix,
    scope: (req) => req.get('x-caller') ?? 'anonymous',
    ...(waitMs ? { waitMs } : {}),
  });
  const create: RequestHandler = async (req, res) => {
    handler.runs++;
    const run = handler.runs;
    if (handler.waitForArrivals) await eventually(() => (handler.arrived >= handler.waitForArrivals! ? true : undefined), 'every request to arrive', 500);
    if (handler.hold) await handler.hold;
    const outcome = handler.next;
    handler.next = 'ok';
    if (outcome === 'throw') throw new Error('database hiccup');
    if (outcome === 'rate_limited') throw appError('rate_limited', 'Daily limit reached.', { headers: { 'Retry-After': '60' } });
    if (outcome === 'unprocessable') throw appError('validation_failed', 'The request body is invalid.', { fields: [{ field: 'name', message: 'too short' }] });
    res.status(201).json({ id: `thing_${run}`, name: (req.body as { name?: string }).name, run });
  };
  app.post('/v1/things', countArrival, guard, create);
  app.post('/v1/other-things', guard, create);
  return finishServiceApp(app, { logger, publicBaseUrl: BASE_URL });
}

describe('idempotency', () => {
  let handler: Handler;
  let app: Express;

  beforeEach(() => {
    handler = { runs: 0, arrived: 0, next: 'ok' };
    app = buildApp(handler);
  });

  const post = (key: string | undefined, body: object, path = '/v1/things') => {
    const call = request(app).post(path).send(body);
    return key === undefined ? call : call.set('Idempotency-Key', key);
  };

  it('runs every request without a key', async () => {
    await post(undefined, { name: 'a' });
    await post(undefined, { name: 'a' });

    expect(handler.runs).toBe(2);
  });

  it('replays the first response for the same key and body, marked Idempotent-Replayed', async () => {
    const key = newKey();

    const first = await post(key, { name: 'Fanshop' });
    const second = await post(key, { name: 'Fanshop' });

    expect(handler.runs).toBe(1);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
  });

  it('treats a body with the same fields in another order as the same body', async () => {
    const key = newKey();

    await post(key, { name: 'Fanshop', size: 3 });
    const second = await post(key, { size: 3, name: 'Fanshop' });

    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(handler.runs).toBe(1);
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const key = newKey();
    await post(key, { name: 'Fanshop' });

    const other = await post(key, { name: 'Another shop' });

    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused', status: 409 });
    expect(handler.runs).toBe(1);
  });

  it('answers 409 for the same key and body on another path', async () => {
    const key = newKey();
    await post(key, { name: 'Fanshop' });

    const other = await post(key, { name: 'Fanshop' }, '/v1/other-things');

    expect(other.status).toBe(409);
  });

  it('keeps the key spaces of different callers apart', async () => {
    const key = newKey();

    const a = await post(key, { name: 'Fanshop' }).set('x-caller', 'caller-a');
    const b = await post(key, { name: 'Fanshop' }).set('x-caller', 'caller-b');

    expect(handler.runs).toBe(2);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('runs the handler once for 10 concurrent identical requests and gives all the same answer', async () => {
    const key = newKey();
    handler.waitForArrivals = 10;

    const responses = await Promise.all(Array.from({ length: 10 }, () => post(key, { name: 'Fanshop' })));

    expect(handler.runs).toBe(1);
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(responses.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
  });

  it('does not store a 5xx outcome, so a retry runs again', async () => {
    const key = newKey();
    handler.next = 'throw';

    const failed = await post(key, { name: 'Fanshop' });
    const retried = await post(key, { name: 'Fanshop' });

    expect(failed.status).toBe(500);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(handler.runs).toBe(2);
  });

  it('does not store a 429 outcome, so a retry runs again', async () => {
    const key = newKey();
    handler.next = 'rate_limited';

    const limited = await post(key, { name: 'Fanshop' });
    const retried = await post(key, { name: 'Fanshop' });

    expect(limited.status).toBe(429);
    expect(retried.status).toBe(201);
    expect(handler.runs).toBe(2);
  });

  it('stores a 4xx outcome and replays it', async () => {
    const key = newKey();
    handler.next = 'unprocessable';

    const first = await post(key, { name: 'x' });
    const second = await post(key, { name: 'x' });

    expect(first.status).toBe(422);
    expect(second.status).toBe(422);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(handler.runs).toBe(1);
  });

  it('stores the outcome for 24 hours', async () => {
    const key = newKey();

    await post(key, { name: 'Fanshop' });

    const ttl = await t.redis.ttl(`${t.prefix}idem:{anonymous}:${createHash('sha256').update(key).digest('hex')}`);
    expect(ttl).toBeGreaterThan(86_400 - 60);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space', 'my key'],
    ['empty', ''],
  ])('answers 400 invalid_request for a key %s', async (_what, key) => {
    const res = await post(key, { name: 'Fanshop' });

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', fields: [{ field: 'Idempotency-Key' }] });
    expect(handler.runs).toBe(0);
  });

  it('accepts a key of 255 visible characters', async () => {
    const res = await post('k'.repeat(255), { name: 'Fanshop' });

    expect(res.status).toBe(201);
  });

  it('answers 409 idempotency_key_in_use when the first request outlasts the wait', async () => {
    let release!: () => void;
    const slow: Handler = { runs: 0, arrived: 0, next: 'ok', hold: new Promise<void>((r) => (release = r)) };
    const slowApp = buildApp(slow, 200);
    const key = newKey();

    const first = request(slowApp).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' }).then((r) => r);
    await eventually(() => (slow.runs === 1 ? true : undefined), 'the first request to start');
    const second = await request(slowApp).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    release();

    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('idempotency_key_in_use');
    expect((await first).status).toBe(201);
  });
});
