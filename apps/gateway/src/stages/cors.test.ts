import { describe, expect, it } from 'vitest';
import { buildExchange, recordingNext } from '../../test/build-exchange.js';
import { createCorsStage } from './cors.js';

const cors = createCorsStage();

function preflight(path: string, requestHeaders = 'authorization, content-type, mcp-protocol-version') {
  const x = buildExchange({
    method: 'OPTIONS',
    url: path,
    headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders },
  });
  x.path = path;
  return x;
}

describe('cors stage', () => {
  it('answers a preflight of /mcp with 204, the methods and the headers, without handing it on', () => {
    const x = preflight('/mcp');
    const { next, ran } = recordingNext();

    void cors(x, next);

    expect(ran()).toBe(false);
    expect(x.answer).toMatchObject({ status: 204, ended: true });
    expect(x.answer.headers['access-control-allow-origin']).toBe('*');
    expect(x.answer.headers['access-control-allow-methods']).toContain('POST');
    expect(x.answer.headers['access-control-allow-headers']).toContain('Authorization');
    expect(x.answer.headers['access-control-allow-headers']).toContain('Mcp-Protocol-Version');
    expect(x.answer.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('allows the Mcp-Param-* headers a preflight asks for, and no other unknown header', () => {
    const x = preflight('/mcp', 'content-type, mcp-param-idempotency-key, x-evil');

    void cors(x, () => undefined);

    expect(x.answer.headers['access-control-allow-headers']).toContain('mcp-param-idempotency-key');
    expect(x.answer.headers['access-control-allow-headers']).not.toContain('x-evil');
  });

  it('marks a request to the token endpoint for any origin and exposes the challenge, then hands it on', () => {
    const x = buildExchange({ method: 'POST', url: '/oauth/token', headers: { origin: 'https://inspector.example' } });
    x.path = '/oauth/token';
    const { next, ran } = recordingNext();

    void cors(x, next);

    expect(ran()).toBe(true);
    expect(x.answer.headers['access-control-allow-origin']).toBe('*');
    expect(x.answer.headers['access-control-expose-headers']).toMatch(/WWW-Authenticate.*Mcp-Session-Id.*RateLimit/);
  });

  it.each(['/oauth/consent/abc', '/oauth/authorize', '/developers/keys'])('leaves %s same-origin: no CORS headers, even for a preflight', (path) => {
    const x = preflight(path);
    const { next, ran } = recordingNext();

    void cors(x, next);

    expect(ran()).toBe(true);
    expect(x.answer.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('hands on an OPTIONS that is not a preflight', () => {
    const x = buildExchange({ method: 'OPTIONS', url: '/mcp' });
    x.path = '/mcp';
    const { next, ran } = recordingNext();

    void cors(x, next);

    expect(ran()).toBe(true);
  });
});
