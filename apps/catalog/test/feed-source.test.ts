// The catalog over a real HTTP feed on loopback: it answers, then fails;
// the service keeps the last good copy. A feed that never answered leaves the
// catalog 502 and not ready.
import { ErrorEnvelope } from '@msa/contracts';
import { startFeedServer, type FeedServer } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asGateway, buildCatalogApp } from './build-catalog.js';

const feedProducts = [
  { handle: 'feed-shirt', title: 'Feed Shirt', type: 'T-Shirt', decoration: ['dtf'], printed_price_from: 19.9 },
  { handle: 'feed-cap', title: 'Feed Cap', type: 'Cap', decoration: ['dtf', 'stick'], printed_price_from: 14.9 },
];

let feed: FeedServer;

beforeAll(async () => {
  feed = await startFeedServer('/feed.json', { status: 200, body: JSON.stringify(feedProducts) });
});

afterAll(async () => {
  await feed.close();
});

function buildFeedApp(clock: { t: number }) {
  return buildCatalogApp({ CATALOG_SOURCE_URL: feed.url, CATALOG_REFRESH_SECONDS: '60' }, { now: () => clock.t });
}

describe('catalog over an HTTP feed', () => {
  it('serves the feed, then the last good copy once the feed fails', async () => {
    feed.reply = { status: 200, body: JSON.stringify(feedProducts) };
    const clock = { t: 0 };
    const app = buildFeedApp(clock);

    const first = await request(app).get('/v1/products').set(asGateway());
    expect(first.status).toBe(200);
    expect(first.body.products.map((p: { handle: string }) => p.handle)).toEqual(['feed-shirt', 'feed-cap']);

    feed.reply = { status: 500, body: 'oops' };
    clock.t = 61_000;
    const hitsBefore = feed.hits;
    const second = await request(app).get('/v1/products').set(asGateway());

    expect(feed.hits).toBe(hitsBefore + 1);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    const pricing = await request(app).get('/v1/pricing').set(asGateway());
    expect(pricing.status).toBe(200);
  });

  it('accepts the { products: [...] } form and picks up new content on refresh', async () => {
    feed.reply = { status: 200, body: JSON.stringify({ products: feedProducts.slice(0, 1) }) };
    const clock = { t: 0 };
    const app = buildFeedApp(clock);
    const first = await request(app).get('/v1/products').set(asGateway());

    feed.reply = { status: 200, body: JSON.stringify({ products: feedProducts }) };
    clock.t = 61_000;
    const second = await request(app).get('/v1/products').set(asGateway());

    expect(first.body.total).toBe(1);
    expect(second.body.total).toBe(2);
    expect(second.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers a product read before with its new content after a refresh', async () => {
    feed.reply = { status: 200, body: JSON.stringify(feedProducts) };
    const clock = { t: 0 };
    const app = buildFeedApp(clock);
    const first = await request(app).get('/v1/products/feed-cap').set(asGateway());

    feed.reply = { status: 200, body: JSON.stringify([feedProducts[0], { ...feedProducts[1], title: 'Feed Cap Neu' }]) };
    clock.t = 61_000;
    const second = await request(app).get('/v1/products/feed-cap').set(asGateway());

    expect(first.body.title).toBe('Feed Cap');
    expect(second.body.title).toBe('Feed Cap Neu');
    expect(second.headers.etag).not.toBe(first.headers.etag);
  });

  it('treats a feed of the wrong shape as failed and keeps the last good copy', async () => {
    feed.reply = { status: 200, body: JSON.stringify(feedProducts) };
    const clock = { t: 0 };
    const app = buildFeedApp(clock);
    await request(app).get('/v1/products').set(asGateway());

    feed.reply = { status: 200, body: JSON.stringify([{ handle: 'Not A Handle' }]) };
    clock.t = 61_000;
    const res = await request(app).get('/v1/products/feed-cap').set(asGateway());

    expect(res.status).toBe(200);
    expect(res.body.title).toBe('Feed Cap');
  });

  it('answers 502 catalog_unavailable and is not ready when the feed never answered', async () => {
    feed.reply = { status: 503, body: '' };
    const app = buildFeedApp({ t: 0 });

    const list = await request(app).get('/v1/products').set(asGateway());
    const pricing = await request(app).get('/v1/pricing').set(asGateway());
    const ready = await request(app).get('/readyz');
    const health = await request(app).get('/healthz');

    expect(list.status).toBe(502);
    expect(ErrorEnvelope.parse(list.body).error).toMatchObject({ code: 'catalog_unavailable', status: 502 });
    expect(pricing.status).toBe(502);
    expect(ready.status).toBe(503);
    expect(health.status).toBe(200);
  });

  it('answers 502 when the feed is not even JSON', async () => {
    feed.reply = { status: 200, body: '<html>maintenance</html>' };
    const app = buildFeedApp({ t: 0 });

    const res = await request(app).get('/v1/products').set(asGateway());

    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('catalog_unavailable');
  });

  it('recovers once the feed answers again', async () => {
    feed.reply = { status: 500, body: '' };
    const clock = { t: 0 };
    const app = buildFeedApp(clock);
    expect((await request(app).get('/v1/products').set(asGateway())).status).toBe(502);

    feed.reply = { status: 200, body: JSON.stringify(feedProducts) };
    clock.t = 31_000;
    const res = await request(app).get('/v1/products').set(asGateway());

    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
  });
});
