import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildShopRequest, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

// Two hours before a UTC midnight, so Retry-After is exact.
const NOW = new Date('2030-05-01T22:00:00.000Z');

let h: Harness;
beforeAll(async () => {
  h = await startHarness('quota', { now: () => NOW });
});
afterAll(async () => {
  await h?.close();
});

async function seed(quota: 'live' | 'sandbox', owner: string, times: number) {
  for (let i = 0; i < times; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, times - i) }, () => h.quotas[quota].reserve(owner, NOW)));
  }
}

describe('daily shop request quotas', () => {
  it('accepts 5 live requests a UTC day and answers the 6th with 429, Retry-After and RateLimit headers', async () => {
    const principal = liveWriter();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await h.post(buildShopRequest(), { principal })).status);

    const sixth = await h.post(buildShopRequest(), { principal });

    expect(statuses).toEqual([201, 201, 201, 201, 201]);
    expect(sixth.status).toBe(429);
    expect(sixth.body.error.code).toBe('rate_limited');
    expect(sixth.body.error.message).toContain('2030-05-02T00:00:00.000Z');
    expect(sixth.headers['retry-after']).toBe('7200');
    expect(sixth.headers['ratelimit-policy']).toBe('"shop-requests-live-day";q=5;w=86400');
    expect(sixth.headers.ratelimit).toBe('"shop-requests-live-day";r=0;t=7200');
  });

  it('tells the caller how many live requests are left today', async () => {
    const principal = liveWriter();

    const first = await h.post(buildShopRequest(), { principal });

    expect(first.status).toBe(201);
    expect(first.headers.ratelimit).toBe('"shop-requests-live-day";r=4;t=7200');
  });

  it('counts per principal: another key still has its 5', async () => {
    const busy = liveWriter();
    await seed('live', busy.id, 5);

    const other = await h.post(buildShopRequest(), { principal: liveWriter() });
    const blocked = await h.post(buildShopRequest(), { principal: busy });

    expect(other.status).toBe(201);
    expect(blocked.status).toBe(429);
  });

  it('does not count rejected requests', async () => {
    const principal = liveWriter();
    for (let i = 0; i < 3; i++) {
      expect((await h.post(buildShopRequest({ shop_name: '' }), { principal })).status).toBe(422);
      expect((await h.post(buildShopRequest({ products: [{ product: 'no-such-thing' }] }), { principal })).status).toBe(422);
    }

    const accepted = await h.post(buildShopRequest(), { principal });

    expect(accepted.status).toBe(201);
    expect(accepted.headers.ratelimit).toBe('"shop-requests-live-day";r=4;t=7200');
  });

  it('accepts 200 sandbox requests a day and answers the 201st with 429', async () => {
    const principal = sandboxWriter();
    await seed('sandbox', principal.id, 199);

    const twoHundredth = await h.post(buildShopRequest(), { principal, sandbox: true });
    const twoHundredFirst = await h.post(buildShopRequest(), { principal, sandbox: true });

    expect(twoHundredth.status).toBe(201);
    expect(twoHundredFirst.status).toBe(429);
    expect(twoHundredFirst.headers['retry-after']).toBe('7200');
    expect(twoHundredFirst.headers['ratelimit-policy']).toBe('"shop-requests-sandbox-day";q=200;w=86400');
    expect(twoHundredFirst.body.error.message).toContain('UTC midnight');
  });

  it('keeps the sandbox and live quotas apart', async () => {
    const principal = liveWriter();
    await seed('sandbox', principal.id, 200);

    const live = await h.post(buildShopRequest(), { principal });
    const sandbox = await h.post(buildShopRequest(), { principal, sandbox: true });

    expect(live.status).toBe(201);
    expect(sandbox.status).toBe(429);
  });

  it('counts anonymous sandbox requests per IP', async () => {
    await seed('sandbox', 'anon:4:203.0.113.9', 200);

    const sameIp = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip: '203.0.113.9' });
    const mappedIp = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip: '::ffff:203.0.113.9' });
    const otherIp = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip: '203.0.113.10' });

    expect(sameIp.status).toBe(429);
    expect(mappedIp.status).toBe(429);
    expect(otherIp.status).toBe(201);
  });

  it('refuses anonymous sandbox requests from a new address of an IPv6 /64 that spent the day', async () => {
    await seed('sandbox', 'anon:6:2001:db8:5:1::/64', 200);

    const sameNetwork = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip: '2001:db8:5:1:abcd::77' });
    const otherNetwork = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip: '2001:db8:5:2::1' });

    expect(sameNetwork.status).toBe(429);
    expect(otherNetwork.status).toBe(201);
  });

  it('stores nothing for a request over the limit', async () => {
    const principal = liveWriter();
    await seed('live', principal.id, 5);
    const before = await h.recordCount();

    const res = await h.post(buildShopRequest(), { principal });

    expect(res.status).toBe(429);
    expect(await h.recordCount()).toBe(before);
  });
});
