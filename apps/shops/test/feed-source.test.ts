// The shop list over a real HTTP feed on loopback: it answers, then fails;
// the service keeps the last good copy. A feed that never answered leaves
// GET /v1/shops 502 and the service not ready.
import { ErrorEnvelope } from '@msa/contracts';
import { startFeedServer, type FeedServer } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asGateway, buildShopsApp } from './build-shops.js';

const feedShops = [
  { name: 'Feed FC', category: 'verein', slug: 'feed-fc', password_protected: false, image_path: null },
  { name: 'Feed Café', category: 'gastro', slug: 'feed-cafe', password_protected: true, image_path: '/images/shops/feed-cafe.svg' },
];

let feed: FeedServer;

beforeAll(async () => {
  feed = await startFeedServer('/shops.json', { status: 200, body: JSON.stringify(feedShops) });
});

afterAll(async () => {
  await feed.close();
});

function buildFeedApp(clock: { t: number }) {
  return buildShopsApp({ SHOPS_SOURCE_URL: feed.url, SHOPS_REFRESH_SECONDS: '60' }, { now: () => clock.t });
}

describe('shop list over an HTTP feed', () => {
  it('serves the feed, then the last good copy once the feed fails', async () => {
    feed.reply = { status: 200, body: JSON.stringify({ shops: feedShops }) };
    const clock = { t: 0 };
    const app = buildFeedApp(clock);

    const first = await request(app).get('/v1/shops').set(asGateway());
    expect(first.status).toBe(200);
    expect(first.body.shops.map((s: { name: string }) => s.name)).toEqual(['Feed FC', 'Feed Café']);

    feed.reply = { status: 500, body: 'oops' };
    clock.t = 61_000;
    const hitsBefore = feed.hits;
    const second = await request(app).get('/v1/shops').set(asGateway());

    expect(feed.hits).toBe(hitsBefore + 1);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it('treats a feed of the wrong shape as failed and keeps the last good copy', async () => {
    feed.reply = { status: 200, body: JSON.stringify(feedShops) };
    const clock = { t: 0 };
    const app = buildFeedApp(clock);
    await request(app).get('/v1/shops').set(asGateway());

    feed.reply = { status: 200, body: JSON.stringify([{ name: 'No slug', category: 'verein' }]) };
    clock.t = 61_000;
    const res = await request(app).get('/v1/shops?category=gastro').set(asGateway());

    expect(res.status).toBe(200);
    expect(res.body.shops[0].name).toBe('Feed Café');
  });

  it('answers 502 shops_unavailable and is not ready when the feed never answered', async () => {
    feed.reply = { status: 503, body: '' };
    const app = buildFeedApp({ t: 0 });

    const list = await request(app).get('/v1/shops').set(asGateway());
    const ready = await request(app).get('/readyz');

    expect(list.status).toBe(502);
    expect(ErrorEnvelope.parse(list.body).error).toMatchObject({ code: 'shops_unavailable', status: 502 });
    expect(ready.status).toBe(503);
  });

  it('still answers 400 for a bad category while the feed is down', async () => {
    feed.reply = { status: 503, body: '' };
    const app = buildFeedApp({ t: 0 });

    const res = await request(app).get('/v1/shops?category=kita').set(asGateway());

    expect(res.status).toBe(400);
  });
});
