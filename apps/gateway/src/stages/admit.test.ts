import { appError, createMetrics } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { buildExchange, buildPrincipal, buildRoute, memoryWindowLimiter, recordingNext } from '../../test/build-exchange.js';
import { createAdmitStage } from './admit.js';
import { createFailOpen } from './fail-open.js';

const metrics = createMetrics('gateway');
const rejections = metrics.counter('test_rejections_total', 'rejections', ['policy']);
const failOpen = createFailOpen(metrics.counter('test_limiter_errors_total', 'limiter errors'));

function admitWith({ principalPoints = 300, anonymousPoints = 60, down = false } = {}) {
  const limiters = {
    principal: memoryWindowLimiter('per-minute', principalPoints, { down }),
    anonymous: memoryWindowLimiter('anonymous-per-minute', anonymousPoints, { down }),
  };
  return { limiters, admit: createAdmitStage({ limiters, failOpen, rejections }) };
}

describe('admit stage', () => {
  it('counts a principal against its own minute and hands on', async () => {
    const { limiters, admit } = admitWith();
    const x = buildExchange({ principal: buildPrincipal() });
    const { next, ran } = recordingNext();

    await admit(x, next);

    expect(limiters.principal.keys).toEqual(['p:msa_client_0123456789abcdef']);
    expect(x.answer.headers['ratelimit-policy']).toBe('"per-minute";q=300;w=60');
    expect(ran()).toBe(true);
  });

  it('counts a caller without credentials against its address', async () => {
    const { limiters, admit } = admitWith();

    await admit(buildExchange(), () => undefined);

    expect(limiters.anonymous.keys).toEqual(['ip:4:203.0.113.9']);
  });

  it('refuses the request past the minute with 429 and the hint for anonymous callers', async () => {
    const { admit } = admitWith({ anonymousPoints: 0 });
    const x = buildExchange();

    await expect(admit(x, () => undefined)).rejects.toMatchObject({ status: 429, extra: { hint: expect.stringContaining('POST /v1/keys') } });
    expect(x.answer.headers.ratelimit).toBe('"anonymous-per-minute";r=0;t=42');
  });

  it('charges a batch one unit per message', async () => {
    const { limiters, admit } = admitWith();
    const x = buildExchange({ principal: buildPrincipal() });
    x.cost = 5;

    await admit(x, () => undefined);

    expect(x.answer.headers.ratelimit).toBe('"per-minute";r=295;t=42');
    expect(limiters.principal.keys).toEqual(['p:msa_client_0123456789abcdef']);
  });

  it('refuses a batch larger than what is left of the minute whole, naming its size, and runs nothing', async () => {
    const { admit } = admitWith({ anonymousPoints: 4 });
    const x = buildExchange();
    x.cost = 5;
    const { next, ran } = recordingNext();

    await expect(admit(x, next)).rejects.toMatchObject({ status: 429, message: expect.stringContaining('batch of 5 messages') });
    expect(x.answer.headers.ratelimit).toBe('"anonymous-per-minute";r=4;t=42');
    expect(ran()).toBe(false);
  });

  it('charges a request to the bucket a rule chose', async () => {
    const { limiters, admit } = admitWith();
    const handshakes = memoryWindowLimiter('mcp-handshake', 240);
    const x = buildExchange({ principal: buildPrincipal() });
    x.bucket = { limiter: handshakes, refusal: () => ({ message: 'too many handshakes' }) };

    await admit(x, () => undefined);

    expect(handshakes.keys).toEqual(['p:msa_client_0123456789abcdef']);
    expect(limiters.principal.keys).toEqual([]);
  });

});

describe('admit stage, refusing', () => {
  it('counts what authenticate could not settle as anonymous, then refuses it', async () => {
    const { limiters, admit } = admitWith();
    const x = buildExchange();
    x.refusal = appError('service_unavailable', 'identity away');
    const { next, ran } = recordingNext();

    await expect(admit(x, next)).rejects.toMatchObject({ status: 503 });
    expect(limiters.anonymous.keys).toEqual(['ip:4:203.0.113.9']);
    expect(ran()).toBe(false);
  });

  it('counts, then asks for credentials where the operation needs them', async () => {
    const { limiters, admit } = admitWith();
    const x = buildExchange({ route: buildRoute({ auth: 'required', scope: 'requests:write' }) });

    await expect(admit(x, () => undefined)).rejects.toMatchObject({
      status: 401,
      extra: { headers: { 'WWW-Authenticate': 'Bearer resource_metadata="http://api.test.local/.well-known/oauth-protected-resource"' } },
    });
    expect(limiters.anonymous.keys).toHaveLength(1);
  });

  it('refuses a principal without the scope with 403, after counting it', async () => {
    const { admit } = admitWith();
    const x = buildExchange({ route: buildRoute({ operation: 'createShopRequest', scope: 'requests:write' }), principal: buildPrincipal() });

    await expect(admit(x, () => undefined)).rejects.toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      extra: { headers: { 'WWW-Authenticate': expect.stringContaining('scope="requests:write"') } },
    });
    expect(x.answer.headers['ratelimit-policy']).toBe('"per-minute";q=300;w=60');
  });

  it('lets the request through without RateLimit headers when the limiter is down', async () => {
    const { admit } = admitWith({ down: true });
    const x = buildExchange();
    const { next, ran } = recordingNext();

    await admit(x, next);

    expect(ran()).toBe(true);
    expect(x.answer.headers).toEqual({});
  });
});
