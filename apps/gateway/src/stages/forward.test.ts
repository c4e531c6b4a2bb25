import { INTERNAL_AUTH_HEADER } from '@msa/contracts';
import { createInternalSigner, verifyInternalToken } from '@msa/service-kit';
import { TEST_INTERNAL_SECRET } from '@msa/test-kit';
import type { Request, RequestHandler } from 'express';
import { describe, expect, it } from 'vitest';
import { BASE, buildExchange, buildPrincipal, buildRoute } from '../../test/build-exchange.js';
import type { PoolName, UpstreamName } from '../domain/route-table.js';
import { createForwardStage } from './forward.js';

function forwardWith() {
  const proxied: Request[] = [];
  const proxy: RequestHandler = (req) => void proxied.push(req);
  const proxies = { catalog: proxy, shops: proxy, requests: proxy, identity: proxy, mcp: proxy, authorize: proxy } satisfies Record<UpstreamName | PoolName, RequestHandler>;
  return { proxied, forward: createForwardStage({ sign: createInternalSigner(TEST_INTERNAL_SECRET), publicBaseUrl: BASE, proxies, body: { maxBytes: 100 * 1024, idleMs: 1_000, deadlineMs: 1_000 } }) };
}

describe('forward stage', () => {
  it('hands a document to the documents router with the sandbox flag and the principal', () => {
    const { forward, proxied } = forwardWith();
    const principal = buildPrincipal({ mode: 'sandbox' });
    const x = buildExchange({ url: '/llms.txt', route: buildRoute({ target: 'docs', auth: 'none' }), principal });
    x.path = '/llms.txt';

    void forward(x, () => undefined);

    expect(x.passedOn).toEqual([undefined]);
    expect(x.res.locals).toEqual({ sandbox: true, principal });
    expect(proxied).toEqual([]);
  });

  it('proxies without /sandbox, the query kept, credentials and inbound internal headers removed', () => {
    const { forward, proxied } = forwardWith();
    const x = buildExchange({
      url: '/sandbox/v1/products?q=hoodie',
      headers: { authorization: `Bearer msa_live_${'k'.repeat(32)}`, 'x-internal-auth': 'forged', 'x-msa-sandbox': 'false', 'x-forwarded-prefix': '/elsewhere' },
      route: buildRoute(),
      principal: buildPrincipal(),
    });
    x.path = '/v1/products';
    x.sandboxPath = true;

    void forward(x, () => undefined);

    const sent = proxied[0]!;
    expect(sent.url).toBe('/v1/products?q=hoodie');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['x-msa-sandbox']).toBeUndefined();
    expect(sent.headers).toMatchObject({
      'x-request-id': 'req-1',
      traceparent: x.req.traceparent,
      'x-forwarded-host': 'api.test.local',
      'x-forwarded-proto': 'http',
      'x-forwarded-for': '203.0.113.9',
      'x-forwarded-prefix': '/sandbox',
    });
    expect(verifyInternalToken(TEST_INTERNAL_SECRET, 'catalog', String(sent.headers[INTERNAL_AUTH_HEADER]))).toMatchObject({
      principal: buildPrincipal(),
      sandbox: true,
      ip: '203.0.113.9',
    });
  });

  it('sends one signed context for a principal\'s requests, the request ids apart', () => {
    const { forward, proxied } = forwardWith();
    const first = buildExchange({ route: buildRoute(), principal: buildPrincipal() });
    const second = buildExchange({ route: buildRoute(), principal: buildPrincipal() });
    (second.req as { id: string }).id = 'req-2';

    void forward(first, () => undefined);
    void forward(second, () => undefined);

    expect(proxied[1]!.headers[INTERNAL_AUTH_HEADER]).toBe(proxied[0]!.headers[INTERNAL_AUTH_HEADER]);
    expect([proxied[0]!.headers['x-request-id'], proxied[1]!.headers['x-request-id']]).toEqual(['req-1', 'req-2']);
  });
});
