import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appError, bindIdempotency, createServiceApp, finishServiceApp, idempotency, idempotencyOf, type AppError } from '../src/index.js';
import { BASE_URL, captureLogs, createTestRedis, eventually, type TestRedis } from './support.js';

let t: TestRedis;
let n = 0;
const newKey = () => `key-${Date.now()}-${++n}`;
/** The Redis key of `key`'s record for callers of `scope`, as the middleware names it. */
const recordKeyOf = (scope: string, key: string) => `${t.prefix}idem:{${scope}}:${createHash('sha256').update(key).digest('hex')}`;

/**
 * A POST with an Idempotency-Key to the app on a port of its own, sent with
 * fetch so the test can hang up on it (supertest cannot); `stop` hangs up
 * and closes the server.
 */
function postAbortable(app: Express, path: string, key: string, body: object) {
  const server = app.listen(0);
  const port = (server.address() as AddressInfo).port;
  const abort = new AbortController();
  const sent = fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
    signal: abort.signal,
  }).catch((err: unknown) => err);
  return {
    server,
    sent,
    hangUp: () => abort.abort(),
    stop: () => {
      abort.abort();
      server.closeAllConnections();
      server.close();
    },
  };
}

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

    const ttl = await t.redis.ttl(recordKeyOf('anonymous', key));
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

  it('replays the answer of a request whose client hung up before it was given', async () => {
    let release!: () => void;
    const slow: Handler = { runs: 0, arrived: 0, next: 'ok', hold: new Promise<void>((r) => (release = r)) };
    const key = newKey();
    const first = postAbortable(buildApp(slow), '/v1/things', key, { name: 'Fanshop' });
    await eventually(() => (slow.runs === 1 ? true : undefined), 'the first request to start');

    first.hangUp();
    await first.sent;
    release();
    const retried = await eventually(async () => {
      const res = await request(first.server).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
      return res.status === 201 ? res : undefined;
    }, 'the retry to be answered');
    first.server.close();

    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.body.run).toBe(1);
    expect(slow.runs).toBe(1);
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

describe('idempotency across a crash of the first attempt', () => {
  // Resources the handler "stores": a Redis hash, as a real route's store would be.
  const stored = () => `${t.prefix}things`;
  interface CrashHandler {
    runs: number;
    ids: string[];
    /** What the next run does after binding: answer, fail before storing, store and then never answer (after confirm(), or without). */
    next: 'answer' | 'fail_before_store' | 'store_then_hang' | 'store_confirm_then_hang';
    /** Set once a run's confirm() returned. */
    confirmed?: boolean;
  }
  const hang = new Promise<void>(() => undefined);

  function buildCrashApp(handler: CrashHandler, lockSeconds: number, onceOnly?: () => AppError): Express {
    const { logger } = captureLogs('silent');
    const app = createServiceApp({ service: 'requests', logger, publicBaseUrl: BASE_URL });
    const guard = idempotency({
      redis: t.redis,
      keyPrefix: t.prefix,
      scope: () => 'crash-caller',
      lockSeconds,
      waitMs: 100,
      ...(onceOnly ? { onceOnly } : {}),
      recover: async ({ resource, res }) => {
        const body = await t.redis.hget(stored(), resource);
        if (body === null) return false;
        res.status(201).type('application/json').send(body);
        return true;
      },
    });
    app.post('/v1/things', guard, async (req, res) => {
      handler.runs++;
      const id = idempotencyOf(res)?.resource ?? `thing_${randomUUID()}`;
      handler.ids.push(id);
      await bindIdempotency(res, id);
      const outcome = handler.next;
      handler.next = 'answer';
      if (outcome === 'fail_before_store') throw new Error('store unreachable');
      const body = JSON.stringify({ id, name: (req.body as { name?: string }).name });
      await t.redis.hset(stored(), id, body);
      if (outcome === 'store_confirm_then_hang') {
        await idempotencyOf(res)?.confirm();
        handler.confirmed = true;
        await hang;
      }
      if (outcome === 'store_then_hang') await hang;
      res.status(201).type('application/json').send(body);
    });
    return finishServiceApp(app, { logger, publicBaseUrl: BASE_URL });
  }

  // The first attempt stores its resource and then never answers, like a process killed before responding; its lock is left to expire.
  async function crashAfterStoring(handler: CrashHandler, key: string): Promise<() => void> {
    const first = postAbortable(buildCrashApp(handler, 1), '/v1/things', key, { name: 'Fanshop' });
    await eventually(async () => (handler.ids[0] && (await t.redis.hexists(stored(), handler.ids[0])) ? true : undefined), 'the first attempt to store');
    return first.stop;
  }

  it('answers a retry from the stored resource once a dead holder’s lock expires, never running the handler again', async () => {
    const handler: CrashHandler = { runs: 0, ids: [], next: 'store_then_hang' };
    const key = newKey();
    const stop = await crashAfterStoring(handler, key);
    const survivor = buildCrashApp(handler, 1);

    const whileHeld = await request(survivor).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    await new Promise((r) => setTimeout(r, 1_100));
    const afterExpiry = await request(survivor).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    stop();

    expect(whileHeld.status).toBe(409);
    expect(whileHeld.body.error.code).toBe('idempotency_key_in_use');
    expect(whileHeld.headers['retry-after']).toBeDefined();
    expect(afterExpiry.status).toBe(201);
    expect(afterExpiry.headers['idempotent-replayed']).toBe('true');
    expect(afterExpiry.body.id).toBe(handler.ids[0]);
    expect(handler.runs).toBe(1);
  });

  it('runs the handler again under the bound id when the first attempt failed before storing', async () => {
    const handler: CrashHandler = { runs: 0, ids: [], next: 'fail_before_store' };
    const app = buildCrashApp(handler, 5);
    const key = newKey();

    const failed = await request(app).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    const retried = await request(app).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    const replayed = await request(app).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });

    expect(failed.status).toBe(500);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(handler.ids).toEqual([handler.ids[0], handler.ids[0]]);
    expect(retried.body.id).toBe(handler.ids[0]);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.id).toBe(handler.ids[0]);
    expect(handler.runs).toBe(2);
  });

  it('keeps a binding for 24 hours and releases the lock once answered', async () => {
    const handler: CrashHandler = { runs: 0, ids: [], next: 'fail_before_store' };
    const app = buildCrashApp(handler, 5);
    const key = newKey();

    await request(app).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });

    const base = recordKeyOf('crash-caller', key);
    await eventually(async () => ((await t.redis.exists(`${base}:lock`)) === 0 ? true : undefined), 'the lock to be released');
    expect(JSON.parse((await t.redis.get(base))!)).toMatchObject({ state: 'bound', resource: handler.ids[0] });
    expect(await t.redis.ttl(base)).toBeGreaterThan(86_400 - 60);
  });

  const shownOnce = () => appError('idempotency_key_reused', 'Shown once only.');

  it('gives an answer that was given to nobody once only, when its attempt died before answering', async () => {
    const handler: CrashHandler = { runs: 0, ids: [], next: 'store_then_hang' };
    const key = newKey();
    const stop = await crashAfterStoring(handler, key);
    const survivor = buildCrashApp(handler, 1, shownOnce);
    await new Promise((r) => setTimeout(r, 1_100));

    const recovered = await request(survivor).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    const repeated = await request(survivor).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    stop();

    expect(recovered.status).toBe(201);
    expect(recovered.body.id).toBe(handler.ids[0]);
    expect(repeated.status).toBe(409);
    expect(repeated.body.error.code).toBe('idempotency_key_reused');
    expect(JSON.stringify(repeated.body)).not.toContain(handler.ids[0]);
    expect(handler.runs).toBe(1);
  });

  // The attempt dies with its answer ready, one step from writing it: nobody saw it, so it is not "already given".
  it('gives the answer once to the first retry when its attempt confirmed its claim and died before answering, and makes a retry meanwhile wait', async () => {
    const handler: CrashHandler = { runs: 0, ids: [], next: 'store_confirm_then_hang' };
    const key = newKey();
    const first = postAbortable(buildCrashApp(handler, 1, shownOnce), '/v1/things', key, { name: 'Fanshop' });
    await eventually(() => (handler.confirmed ? true : undefined), 'the first attempt to confirm its claim');
    const survivor = buildCrashApp(handler, 1, shownOnce);

    const whileHeld = await request(survivor).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    await new Promise((r) => setTimeout(r, 1_100));
    const recovered = await request(survivor).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    const repeated = await request(survivor).post('/v1/things').set('Idempotency-Key', key).send({ name: 'Fanshop' });
    first.stop();

    expect(whileHeld.status).toBe(409);
    expect(whileHeld.body.error.code).toBe('idempotency_key_in_use');
    expect(recovered.status).toBe(201);
    expect(recovered.body.id).toBe(handler.ids[0]);
    expect(repeated.status).toBe(409);
    expect(repeated.body.error.code).toBe('idempotency_key_reused');
    expect(handler.runs).toBe(1);
  });
});

describe('idempotency of answers given once only', () => {
  function buildOnceApp(handler: { runs: number; confirmed?: boolean }): Express {
    const { logger } = captureLogs('silent');
    const app = createServiceApp({ service: 'requests', logger, publicBaseUrl: BASE_URL });
    const guard = idempotency({
      redis: t.redis,
      keyPrefix: t.prefix,
      scope: () => 'once-caller',
      waitMs: 100,
      onceOnly: () => appError('idempotency_key_reused', 'Shown once only.'),
    });
    app.post('/v1/secrets', guard, (_req, res) => {
      handler.runs++;
      res.status(201).json({ secret: `secret_${randomUUID()}` });
    });
    // Confirms its claim and then dies before answering.
    app.post('/v1/dying', guard, async (_req, res) => {
      handler.runs++;
      await idempotencyOf(res)?.confirm();
      handler.confirmed = true;
      await new Promise<void>(() => undefined);
    });
    return finishServiceApp(app, { logger, publicBaseUrl: BASE_URL });
  }

  it('refuses a repeat with 409 instead of replaying the secret, and runs nothing twice', async () => {
    const handler = { runs: 0 };
    const app = buildOnceApp(handler);
    const key = newKey();

    const first = await request(app).post('/v1/secrets').set('Idempotency-Key', key).send({ name: 'a' });
    const repeat = await request(app).post('/v1/secrets').set('Idempotency-Key', key).send({ name: 'a' });

    expect(first.status).toBe(201);
    expect(repeat.status).toBe(409);
    expect(repeat.body.error.code).toBe('idempotency_key_reused');
    expect(repeat.headers['idempotent-replayed']).toBeUndefined();
    expect(JSON.stringify(repeat.body)).not.toContain(first.body.secret);
    expect(handler.runs).toBe(1);
  });

  // Nobody has seen its answer yet: "already given" would be wrong, and so would running it again.
  it('makes a repeat wait, never refuses it, while the first request has confirmed its claim but not answered', async () => {
    const handler = { runs: 0, confirmed: false };
    const app = buildOnceApp(handler);
    const key = newKey();
    const dying = postAbortable(app, '/v1/dying', key, {});
    await eventually(() => (handler.confirmed ? true : undefined), 'the request to confirm its claim');

    const repeat = await request(app).post('/v1/dying').set('Idempotency-Key', key).send({});
    dying.stop();

    expect(repeat.status).toBe(409);
    expect(repeat.body.error.code).toBe('idempotency_key_in_use');
    expect(repeat.headers['retry-after']).toBeDefined();
    expect(handler.runs).toBe(1);
  });

  it('stores only that the request finished, never its answer', async () => {
    const app = buildOnceApp({ runs: 0 });
    const key = newKey();

    const first = await request(app).post('/v1/secrets').set('Idempotency-Key', key).send({ name: 'b' });

    const base = recordKeyOf('once-caller', key);
    const record = await eventually(async () => {
      const raw = await t.redis.get(base);
      return raw && (JSON.parse(raw) as { state: string }).state === 'done' ? raw : undefined;
    }, 'the record to be written');
    expect(record).not.toContain(first.body.secret);
    expect(JSON.parse(record)).toMatchObject({ state: 'done', status: 201, body: '' });
  });
});
