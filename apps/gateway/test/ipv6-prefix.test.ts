// Per-address limits through the gateway count an IPv6 client by its /64:
// one subscriber holds the whole prefix, so a new address in it is no new
// client. Addresses reach the gateway as a trusted proxy names them.
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

let tr: TestRedis;
let identity: TestIdentity;
/** Identity as every upstream; the anonymous minute and failed-auth budget small enough to run out. */
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  tr = await createTestRedis('gw-ipv6');
  identity = await startTestIdentity(tr);
  app = createApp(testGatewayDeps(tr, identity, identity.service.url, { anonymous: 30, failedAuth: 3 }, { trustProxy: 'true' }));
});

afterAll(async () => {
  await identity?.close();
  await tr?.cleanup();
});

function createKey(from: string) {
  return request(app)
    .post('/v1/keys')
    .set('x-forwarded-for', from)
    .send({ name: 'agent', email: 'agent@example.org', mode: 'sandbox' });
}

describe('per-address limits on IPv6', () => {
  it('refuses an 11th key a day to a 12th address of the same /64 (429)', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 12; i++) statuses.push((await createKey(`2001:db8:10:1::${i.toString(16)}`)).status);

    expect(statuses).toEqual([...Array(10).fill(201), 429, 429]);
    const refused = await createKey('2001:db8:10:1:ffff::1');
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBeTruthy();
    // Another /64 is another client.
    expect((await createKey('2001:db8:10:2::1')).status).toBe(201);
  });

  it('counts IPv4 and the same address written as IPv4-mapped IPv6 as one client', async () => {
    for (let i = 0; i < 5; i++) expect((await createKey('203.0.113.9')).status).toBe(201);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await createKey('::ffff:203.0.113.9')).status);

    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
  });

  it('refuses the anonymous minute to new addresses of a /64 that spent it', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 31; i++) {
      statuses.push((await request(app).get('/v1/keys').set('x-forwarded-for', `2001:db8:20:1:${i.toString(16)}::7`)).status);
    }

    expect(statuses.slice(0, 30).every((s) => s !== 429)).toBe(true);
    expect(statuses[30]).toBe(429);
    expect((await request(app).get('/v1/keys').set('x-forwarded-for', '2001:db8:20:2::7')).status).not.toBe(429);
  });

  it('refuses key guessing from new addresses of a /64 past the failed-auth budget', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) {
      const res = await request(app).get('/v1/me').set('x-forwarded-for', `2001:db8:30:1::${i}`).set('authorization', `Bearer msa_live_wrong${i}`);
      statuses.push(res.status);
    }

    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
