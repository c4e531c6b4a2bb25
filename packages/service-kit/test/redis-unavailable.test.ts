// What a service does when its Redis cannot be reached: retryable 503s in the
// envelope, and connection errors as rate-limited JSON log lines, never
// ioredis's own console output.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp, finishServiceApp, isRedisUnavailable, type RedisClient } from '../src/index.js';
import { createRedis } from '../src/redis.js';
import { BASE_URL, captureLogs, createTestRedis, type TestRedis } from './support.js';

async function closedRedisUrl(): Promise<string> {
  const port = await new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
  return `redis://127.0.0.1:${port}`;
}

const rejection = (p: Promise<unknown>) => p.then(() => null, (err: unknown) => err);

describe('a Redis that cannot be reached', () => {
  let url: string;
  const clients: RedisClient[] = [];
  const client = (...args: Parameters<typeof createRedis>) => {
    const c = createRedis(...args);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    url = await closedRedisUrl();
  });

  afterAll(() => {
    for (const c of clients) c.disconnect();
  });

  it('answers 503 service_unavailable with Retry-After in the envelope', async () => {
    const logs = captureLogs();
    const redis = client(url, 'api', { logger: logs.logger });
    const app = createServiceApp({ service: 'shops', logger: logs.logger, publicBaseUrl: BASE_URL });
    app.use(
      Router().get('/v1/counter', async (_req, res) => {
        res.json({ value: await redis.incr('counter') });
      }),
    );
    finishServiceApp(app, { logger: logs.logger, publicBaseUrl: BASE_URL });

    const res = await request(app).get('/v1/counter');

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body.error).toMatchObject({ code: 'service_unavailable', status: 503, docs: `${BASE_URL}/developers#service_unavailable` });
    expect(logs.lines.some((l) => l.msg === 'unhandled error')).toBe(false);
  });

  it('logs its connection errors as one JSON line per interval, naming the connection', async () => {
    const logs = captureLogs();
    const redis = client(url, 'api', { logger: logs.logger, label: 'store', retryStrategy: () => 20 });
    await rejection(redis.get('x'));

    await new Promise((r) => setTimeout(r, 500));

    const errors = logs.lines.filter((l) => l.msg === 'redis connection error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 'warn', connection: 'store' });
    expect((errors[0]!.err as { message: string }).message).toContain('ECONNREFUSED');
  });

  it('writes nothing but JSON lines, even for a client given no logger', async () => {
    const kit = new URL('../dist/redis.js', import.meta.url).href;
    const script = `
      import { createRedis } from ${JSON.stringify(kit)};
      const redis = createRedis(${JSON.stringify(url)}, 'api', { retryStrategy: () => 20 });
      await redis.get('x').catch(() => undefined);
      setTimeout(() => { redis.disconnect(); }, 300);
    `;

    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('..', import.meta.url)), env: { ...process.env, LOG_LEVEL: 'info' } }, (err, stdout, stderr) =>
        err ? reject(err) : resolve({ stdout, stderr }),
      );
    });

    const lines = (stdout + stderr).split('\n').filter((l) => l.trim());
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    expect(stdout + stderr).not.toContain('[ioredis]');
  });

  it('recognises the errors ioredis raises without a connection as unavailability', async () => {
    const failFast = client(url, 'api', { logger: captureLogs().logger });
    const noQueue = client(url, 'api', { logger: captureLogs().logger, enableOfflineQueue: false });
    const closed = client(url, 'api', { logger: captureLogs().logger, lazyConnect: true });
    closed.disconnect();

    const errors = await Promise.all([rejection(failFast.get('x')), rejection(noQueue.get('x')), rejection(closed.get('x'))]);

    expect(errors.map((e) => (e as Error).message)).toEqual([
      expect.stringContaining('max retries per request'),
      expect.stringContaining("Stream isn't writeable"),
      'Connection is closed.',
    ]);
    expect(errors.every(isRedisUnavailable)).toBe(true);
  });
});

describe('a Redis that answers too slowly', () => {
  let tr: TestRedis;

  beforeAll(async () => {
    tr = await createTestRedis('slow');
  });

  afterAll(async () => {
    await tr?.cleanup();
  });

  it('counts a command timeout as unavailability', async () => {
    const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'api', { logger: captureLogs().logger, commandTimeout: 50 });

    const err = await rejection(redis.blpop(`${tr.prefix}never`, 1));

    expect((err as Error).message).toBe('Command timed out');
    expect(isRedisUnavailable(err)).toBe(true);
    redis.disconnect();
  });
});

