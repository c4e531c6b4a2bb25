// What browser-based clients and hosts with their own habits meet at the
// gateway: CORS on the discovery, token, registration, revocation and MCP
// endpoints (real preflights over HTTP, real identity behind), none on the
// consent pages; and tokens whose audience carries the trailing slash the
// client sent, accepted on the REST API and on /mcp, live and sandbox.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { BASE, startTestIdentity, testGatewayDeps, type TestIdentity } from './support.js';

const INSPECTOR = 'http://localhost:6274';

let tr: TestRedis;
let identity: TestIdentity;
let upstream: http.Server;
let app: ReturnType<typeof createApp>;
const reached: string[] = [];
let nextIp = 1;

beforeAll(async () => {
  tr = await createTestRedis('gateway-browser-clients');
  identity = await startTestIdentity(tr);
  // Stands in for catalog, shops, requests and mcp: whatever reaches it was let through.
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      reached.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {}, shops: [] }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  app = createApp(
    testGatewayDeps(tr, identity, { catalog: url, shops: url, requests: url, mcp: url, identity: identity.service.url }, { failedAuth: 3 }, { trustProxy: 'true' }),
  );
});

afterAll(async () => {
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
  await identity?.close();
  await tr?.cleanup();
});

const fromAddress = () => `198.51.100.${nextIp++}`;

function preflight(path: string, method = 'POST') {
  return request(app)
    .options(path)
    .set('x-forwarded-for', fromAddress())
    .set('Origin', INSPECTOR)
    .set('Access-Control-Request-Method', method)
    .set('Access-Control-Request-Headers', 'authorization, content-type, mcp-protocol-version, mcp-session-id, last-event-id');
}

const METADATA_PATHS = [
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-authorization-server/sandbox',
  '/sandbox/.well-known/oauth-authorization-server',
  '/.well-known/oauth-protected-resource',
  '/.well-known/oauth-protected-resource/sandbox',
  '/.well-known/oauth-protected-resource/mcp',
  '/.well-known/oauth-protected-resource/sandbox/mcp',
];

describe('CORS for browser-based clients', () => {
  it.each([...METADATA_PATHS.map((p) => [p, 'GET']), ...['/oauth/token', '/sandbox/oauth/token', '/oauth/register', '/oauth/revoke', '/mcp', '/sandbox/mcp'].map((p) => [p, 'POST'])])(
    'answers a preflight of %s with 204, any origin and no credentials',
    async (path, method) => {
      const res = await preflight(path!, method);

      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      expect(res.headers['access-control-allow-methods']).toContain(method);
      for (const header of ['Authorization', 'Content-Type', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID']) {
        expect(res.headers['access-control-allow-headers']).toContain(header);
      }
    },
  );

  it('answers preflights before credentials and limits: never 401, never counted as a failed authentication', async () => {
    const ip = fromAddress();
    for (let i = 0; i < 5; i++) {
      const res = await request(app)
        .options('/mcp')
        .set('x-forwarded-for', ip)
        .set('Authorization', 'Bearer not-a-token')
        .set('Origin', INSPECTOR)
        .set('Access-Control-Request-Method', 'POST');
      expect(res.status).toBe(204);
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    }
    const wrong = await request(app).post('/mcp').set('x-forwarded-for', ip).set('Authorization', 'Bearer not-a-token').set('content-type', 'application/json').send('{}');

    expect(wrong.status).toBe(401);
    expect(wrong.headers.ratelimit).toMatch(/^"failed-auth";r=2;/);
  });

  it('serves the metadata to another origin, readable by its page', async () => {
    for (const path of METADATA_PATHS) {
      const res = await request(app).get(path).set('x-forwarded-for', fromAddress()).set('Origin', INSPECTOR);

      expect(res.status, path).toBe(200);
      expect(res.headers['access-control-allow-origin'], path).toBe('*');
    }
  });

  it('lets a page read the Bearer challenge of a refused /mcp call', async () => {
    const res = await request(app)
      .post('/mcp')
      .set('x-forwarded-for', fromAddress())
      .set('Origin', INSPECTOR)
      .set('Authorization', 'Bearer not-a-token')
      .set('content-type', 'application/json')
      .send('{}');

    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['www-authenticate']).toContain('resource_metadata=');
    expect(res.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
    expect(res.headers['access-control-expose-headers']).toContain('Mcp-Session-Id');
    expect(res.headers['access-control-expose-headers']).toContain('RateLimit');
  });

  it('registers a client for a page on another origin and answers its token request there', async () => {
    const registered = await request(app)
      .post('/oauth/register')
      .set('x-forwarded-for', fromAddress())
      .set('Origin', INSPECTOR)
      .send({ client_name: 'Inspector', redirect_uris: [`${INSPECTOR}/oauth/callback`], token_endpoint_auth_method: 'none' });
    const token = await request(app)
      .post('/oauth/token')
      .set('x-forwarded-for', fromAddress())
      .set('Origin', INSPECTOR)
      .type('form')
      .send({ grant_type: 'authorization_code', client_id: registered.body.client_id, code: 'not-a-code', code_verifier: 'x'.repeat(43) });
    const revoked = await request(app)
      .post('/oauth/revoke')
      .set('x-forwarded-for', fromAddress())
      .set('Origin', INSPECTOR)
      .type('form')
      .send({ token: 'nothing-we-know', client_id: registered.body.client_id });

    expect(registered.status).toBe(201);
    expect(registered.headers['access-control-allow-origin']).toBe('*');
    expect(token.status).toBe(400);
    expect(token.headers['access-control-allow-origin']).toBe('*');
    expect(revoked.status).toBe(200);
    expect(revoked.headers['access-control-allow-origin']).toBe('*');
  });

  it('keeps the authorization and consent pages and the portal form same-origin', async () => {
    for (const path of ['/oauth/authorize', '/oauth/consent/abc', '/developers/keys']) {
      const res = await preflight(path);
      const get = await request(app).get(path).set('x-forwarded-for', fromAddress()).set('Origin', INSPECTOR);

      expect(res.headers['access-control-allow-origin'], path).toBeUndefined();
      expect(get.headers['access-control-allow-origin'], path).toBeUndefined();
    }
  });
});

describe('token audiences with a trailing slash', () => {
  async function tokenFor(resource: string, sandbox = false) {
    const created = await request(app)
      .post('/v1/keys')
      .set('x-forwarded-for', fromAddress())
      .send({ name: 'slash', email: 'slash@example.org', mode: sandbox ? 'sandbox' : 'live', scopes: ['shops:read', 'catalog:read'] });
    expect(created.status).toBe(201);
    const issued = await request(app)
      .post(sandbox ? '/sandbox/oauth/token' : '/oauth/token')
      .set('x-forwarded-for', fromAddress())
      .type('form')
      .send({ grant_type: 'client_credentials', client_id: created.body.client_id, client_secret: created.body.client_secret, resource });
    expect(issued.status).toBe(200);
    const token = issued.body.access_token as string;
    const aud = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { aud: string }).aud;
    return { token, aud };
  }

  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

  it('issues the aud as the client spelled it and accepts it on the REST API and on /mcp', async () => {
    const host = await tokenFor(`${BASE}/`);
    const mcp = await tokenFor(`${BASE}/mcp/`);

    const rest = await request(app).get('/v1/shops').set('x-forwarded-for', fromAddress()).set('Authorization', `Bearer ${host.token}`);
    const mcpWithHost = await request(app).post('/mcp').set('x-forwarded-for', fromAddress()).set('Authorization', `Bearer ${host.token}`).send(ping);
    const mcpWithMcp = await request(app).post('/mcp').set('x-forwarded-for', fromAddress()).set('Authorization', `Bearer ${mcp.token}`).send(ping);
    const restWithMcp = await request(app).get('/v1/shops').set('x-forwarded-for', fromAddress()).set('Authorization', `Bearer ${mcp.token}`);

    expect([host.aud, mcp.aud]).toEqual([`${BASE}/`, `${BASE}/mcp/`]);
    expect([rest.status, mcpWithHost.status, mcpWithMcp.status]).toEqual([200, 200, 200]);
    expect(restWithMcp.status).toBe(401);
  });

  it('accepts the sandbox forms with a trailing slash on the sandbox', async () => {
    const sandboxMcp = await tokenFor(`${BASE}/sandbox/mcp/`, true);
    const sandboxApi = await tokenFor(`${BASE}/sandbox/`, true);

    const mcp = await request(app).post('/sandbox/mcp').set('x-forwarded-for', fromAddress()).set('Authorization', `Bearer ${sandboxMcp.token}`).send(ping);
    const rest = await request(app).get('/sandbox/v1/shops').set('x-forwarded-for', fromAddress()).set('Authorization', `Bearer ${sandboxApi.token}`);
    const liveMcp = await request(app).post('/mcp').set('x-forwarded-for', fromAddress()).set('Authorization', `Bearer ${sandboxMcp.token}`).send(ping);

    expect([sandboxMcp.aud, sandboxApi.aud]).toEqual([`${BASE}/sandbox/mcp/`, `${BASE}/sandbox/`]);
    expect([mcp.status, rest.status]).toEqual([200, 200]);
    expect(liveMcp.status).toBe(401);
  });
});
