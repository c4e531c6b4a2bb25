import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_PATHS, createDocsRouter } from '../src/router.js';

const BASE = 'https://merch.example.net';

// The gateway's contract: strip /sandbox, flag the sandbox, then hand over.
function buildApp() {
  const app = express();
  const docs = createDocsRouter({ publicBaseUrl: BASE });
  app.use((req, res, next) => {
    if (req.url === '/sandbox' || req.url.startsWith('/sandbox/')) {
      req.url = req.url.slice('/sandbox'.length) || '/';
      res.locals.sandbox = true;
    }
    next();
  });
  app.use(docs);
  app.use((_req, res) => {
    res.status(404).json({ error: { code: 'not_found' } });
  });
  return app;
}

const app = buildApp();

const defaults: Record<(typeof DOCUMENT_PATHS)[number], string> = {
  '/': 'application/json',
  '/openapi.json': 'application/json',
  '/llms.txt': 'text/markdown',
  '/agents.md': 'text/markdown',
  '/v1/versioning': 'application/json',
  '/v1/onboarding': 'application/json',
  '/v1/keys': 'application/json',
  '/developers': 'text/html',
};

describe('documents router', () => {
  for (const path of DOCUMENT_PATHS) {
    it(`GET ${path} answers ${defaults[path]} without credentials`, async () => {
      const res = await request(app).get(path);

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain(defaults[path]);
      expect(res.headers.etag).toMatch(/^"/);
      expect(res.headers['cache-control']).toContain('max-age');
    });

    it(`GET ${path} answers Markdown on Accept: text/markdown`, async () => {
      const res = await request(app).get(path).set('Accept', 'text/markdown');

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(res.text).toMatch(/^# /);
      expect(res.text).not.toContain('{{');
    });
  }

  it('advertises the Markdown alternate on JSON and HTML answers', async () => {
    for (const path of ['/v1/onboarding', '/openapi.json']) {
      const res = await request(app).get(path);

      expect(res.headers.link).toBe(`<${BASE}${path}>; rel="alternate"; type="text/markdown"`);
      expect(res.headers.vary).toContain('Accept');
    }
  });

  it('links the entry points / and /developers to the OpenAPI document, the portal, the API catalog and llms.txt (RFC 8288)', async () => {
    for (const path of ['/', '/developers']) {
      const res = await request(app).get(path);
      const markdown = await request(app).get(path).set('Accept', 'text/markdown');

      expect(res.headers.link).toBe(
        [
          `<${BASE}/openapi.json>; rel="service-desc"; type="application/vnd.oai.openapi+json"`,
          `<${BASE}/developers>; rel="service-doc"; type="text/html"`,
          `<${BASE}/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"`,
          `<${BASE}/llms.txt>; rel="describedby"; type="text/markdown"`,
          `<${BASE}${path}>; rel="alternate"; type="text/markdown"`,
        ].join(', '),
      );
      expect(markdown.headers.link).toContain(`<${BASE}${path}>; rel="alternate"; type="${path === '/' ? 'application/json' : 'text/html'}"`);
      expect(res.headers.vary).toContain('Accept');
    }
  });

  it('links the sandbox entry points to the sandbox documents and the one API catalog', async () => {
    const res = await request(app).get('/sandbox/');

    expect(res.headers.link).toContain(`<${BASE}/sandbox/openapi.json>; rel="service-desc"`);
    expect(res.headers.link).toContain(`<${BASE}/sandbox/developers>; rel="service-doc"`);
    expect(res.headers.link).toContain(`<${BASE}/.well-known/api-catalog>; rel="api-catalog"`);
  });

  it('keeps the default for a browser Accept header', async () => {
    const res = await request(app).get('/developers').set('Accept', 'text/html,application/xhtml+xml,*/*;q=0.8');

    expect(res.headers['content-type']).toContain('text/html');
  });

  it('prefers Markdown when it is listed before a wildcard', async () => {
    const res = await request(app).get('/').set('Accept', 'text/markdown, */*;q=0.1');

    expect(res.headers['content-type']).toContain('text/markdown');
  });

  it('serves the same onboarding document at /v1/onboarding and GET /v1/keys', async () => {
    const onboarding = await request(app).get('/v1/onboarding');
    const keys = await request(app).get('/v1/keys');

    expect(keys.body).toEqual(onboarding.body);
  });

  it('answers a matching If-None-Match with 304', async () => {
    const first = await request(app).get('/llms.txt');

    const second = await request(app).get('/llms.txt').set('If-None-Match', first.headers.etag!);

    expect(second.status).toBe(304);
    expect(second.text).toBe('');
  });

  it('answers HEAD without a body', async () => {
    const res = await request(app).head('/agents.md');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/markdown');
  });

  it('points API links at the sandbox when the request came through /sandbox', async () => {
    const doc = await request(app).get('/sandbox/');
    const llms = await request(app).get('/sandbox/llms.txt');
    const openapi = await request(app).get('/sandbox/openapi.json');

    expect(doc.body.sandbox).toBe(true);
    expect(doc.body.links.products.href).toBe(`${BASE}/sandbox/v1/products`);
    expect(llms.text).toContain(`${BASE}/sandbox/v1/products`);
    expect(openapi.body.servers[0].url).toBe(`${BASE}/sandbox`);
  });

  it('serves the favicon as SVG on production and sandbox paths, with 304 on a matching ETag', async () => {
    const res = await request(app).get('/favicon.ico');
    const sandbox = await request(app).get('/sandbox/favicon.ico');
    const again = await request(app).get('/favicon.ico').set('If-None-Match', res.headers.etag!);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers['cache-control']).toContain('max-age');
    expect(Buffer.from(res.body as Buffer).toString('utf8')).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(sandbox.status).toBe(200);
    expect(again.status).toBe(304);
  });

  it('serves the portal with the key form, every field labelled, posting to the environment it was read on', async () => {
    const production = await request(app).get('/developers');
    const sandbox = await request(app).get('/sandbox/developers');

    expect(production.text).toContain(`<form class="key-form" method="post" action="${BASE}/developers/keys">`);
    for (const [id, name] of [['key-name', 'name'], ['key-email', 'email']]) {
      expect(production.text).toMatch(new RegExp(`<label for="${id}">[^<]+</label>\\n<input id="${id}" name="${name}"`));
    }
    expect(production.text).toMatch(/<label class="choice"><input type="radio" name="mode" value="live">/);
    expect(sandbox.text).toContain(`action="${BASE}/sandbox/developers/keys"`);
  });

  it('leaves every other path and method to the next handler, the key form\'s POST included', async () => {
    const post = await request(app).post('/v1/keys').send({});
    const form = await request(app).post('/developers/keys').type('form').send({ name: 'my-agent' });
    const other = await request(app).get('/v1/products');

    expect(post.status).toBe(404);
    expect(form.status).toBe(404);
    expect(other.status).toBe(404);
  });
});
