import { createHash } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { DISCOVERY_PATHS, createDocsRouter, type DocsRouterOptions } from '../src/router.js';

const BASE = 'https://merch.example.net';
const PROOF = 'v=MCPv1; k=ed25519; p=MCowBQYDK2VwAyEAd8pV3y6hJ7C4t6bD1wM0j8Nq5G2sQ0sZr3vX9yLk4eA=';

// The gateway's contract: strip /sandbox, flag the sandbox, then hand over.
function buildApp(options: Partial<DocsRouterOptions> = {}) {
  const app = express();
  app.use((req, res, next) => {
    if (req.url === '/sandbox' || req.url.startsWith('/sandbox/')) {
      req.url = req.url.slice('/sandbox'.length) || '/';
      res.locals.sandbox = true;
    }
    next();
  });
  app.use(createDocsRouter({ publicBaseUrl: BASE, ...options }));
  app.use((_req, res) => {
    res.status(404).json({ error: { code: 'not_found' } });
  });
  return app;
}

const CHALLENGE = 'oai-apps-challenge_3f9c2b7a1e';
const app = buildApp({ mcpRegistryAuth: PROOF, openaiAppsChallenge: CHALLENGE });

const TYPES: Record<string, string> = {
  '/robots.txt': 'text/plain',
  '/sitemap.xml': 'application/xml',
  '/.well-known/api-catalog': 'application/linkset+json',
  '/mcp/server-card': 'application/mcp-server-card+json',
  '/.well-known/mcp/server-card.json': 'application/json',
  '/.well-known/mcp.json': 'application/json',
  '/.well-known/mcp/catalog.json': 'application/json',
  '/.well-known/ai-catalog.json': 'application/ai-catalog+json',
  '/server.json': 'application/json',
  '/.well-known/mcp-registry-auth': 'text/plain',
  '/.well-known/openai-apps-challenge': 'text/plain',
  '/.well-known/agent-skills/index.json': 'application/json',
  '/.well-known/agent-skills/{name}/SKILL.md': 'text/markdown',
};

const concrete = (path: string) => path.replace('{name}', 'get-quote');

describe('discovery documents', () => {
  for (const path of DISCOVERY_PATHS) {
    it(`GET ${path} answers ${TYPES[path]} with an ETag, and 304 for it`, async () => {
      const res = await request(app).get(concrete(path));
      const again = await request(app).get(concrete(path)).set('If-None-Match', res.headers.etag!);

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toContain(TYPES[path]);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(again.status).toBe(304);
    });
  }

  it('answers HEAD on the API catalog with its Link to itself (RFC 9727)', async () => {
    const res = await request(app).head('/.well-known/api-catalog');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/linkset\+json; profile="https:\/\/www.rfc-editor.org\/info\/rfc9727"/);
    expect(res.headers.link).toBe(`<${BASE}/.well-known/api-catalog>; rel="api-catalog"`);
  });

  it('lets browser-based clients read the server cards and catalogs (CORS)', async () => {
    for (const path of ['/mcp/server-card', '/.well-known/mcp/server-card.json', '/.well-known/api-catalog', '/.well-known/agent-skills/index.json']) {
      const res = await request(app).get(path);

      expect(res.headers['access-control-allow-origin'], path).toBe('*');
      expect(res.headers['access-control-expose-headers'], path).toBe('ETag');
    }
  });

  it('serves the sandbox card with the sandbox remote first, and the well-known card for production', async () => {
    const sandbox = await request(app).get('/sandbox/mcp/server-card');
    const wellKnown = await request(app).get('/sandbox/.well-known/mcp/server-card.json');

    expect(sandbox.body.remotes.map((r: { url: string }) => r.url)).toEqual([`${BASE}/sandbox/mcp`, `${BASE}/mcp`]);
    expect(wellKnown.body.remotes[0].url).toBe(`${BASE}/mcp`);
  });

  it('serves one card at every place a client looks', async () => {
    const bodies = await Promise.all(['/mcp/server-card', '/.well-known/mcp/server-card.json', '/.well-known/mcp.json'].map((p) => request(app).get(p)));

    expect(bodies[1]!.text).toBe(bodies[0]!.text);
    expect(bodies[2]!.text).toBe(bodies[0]!.text);
  });

  it('serves each skill with the digest its index names', async () => {
    const index = await request(app).get('/.well-known/agent-skills/index.json');

    for (const skill of index.body.skills as { url: string; digest: string }[]) {
      const res = await request(app).get(new URL(skill.url).pathname);
      expect(`sha256:${createHash('sha256').update(res.text).digest('hex')}`).toBe(skill.digest);
    }
  });

  it('leaves an unknown skill to the next handler', async () => {
    const res = await request(app).get('/.well-known/agent-skills/no-such-skill/SKILL.md');

    expect(res.status).toBe(404);
  });

  it('serves the MCP Registry proof as configured, and nothing without one', async () => {
    const withProof = await request(app).get('/.well-known/mcp-registry-auth').set('Accept', 'text/plain').set('User-Agent', 'mcp-registry/1.0');
    const without = await request(buildApp()).get('/.well-known/mcp-registry-auth');

    expect(withProof.text).toBe(`${PROOF}\n`);
    expect(without.status).toBe(404);
  });

  it('serves the ChatGPT apps challenge token as configured, and nothing without one', async () => {
    const withToken = await request(app).get('/.well-known/openai-apps-challenge');
    const without = await request(buildApp()).get('/.well-known/openai-apps-challenge');

    expect(withToken.status).toBe(200);
    expect(withToken.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(withToken.text).toBe(CHALLENGE);
    expect(without.status).toBe(404);
  });

  it('writes the content signal it was given, and refuses one it cannot read at start', async () => {
    const res = await request(buildApp({ contentSignal: 'search=yes, ai-input=no, ai-train=no' })).get('/robots.txt');

    expect(res.text).toContain('Content-Signal: search=yes, ai-input=no, ai-train=no');
    expect(() => createDocsRouter({ publicBaseUrl: BASE, contentSignal: 'ai-train=maybe' })).toThrow(/ai-train=maybe/);
  });
});
