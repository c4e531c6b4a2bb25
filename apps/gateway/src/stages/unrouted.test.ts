import { AppError } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { buildExchange, recordingNext } from '../../test/build-exchange.js';
import { createUnroutedStage } from './unrouted.js';

const unrouted = createUnroutedStage();

describe('unrouted stage', () => {
  it('hands a routed request on', () => {
    const { next, ran } = recordingNext();

    void unrouted(buildExchange(), next);

    expect(ran()).toBe(true);
  });

  it('refuses an unknown path with 404', () => {
    const x = buildExchange({ url: '/nope' });
    x.miss = { kind: 'not_found' };

    expect(() => unrouted(x, () => undefined)).toThrow(expect.objectContaining({ status: 404, code: 'not_found' }));
  });

  it('refuses another method with 405 and Allow', () => {
    const x = buildExchange({ method: 'DELETE', url: '/v1/pricing' });
    x.path = '/v1/pricing';
    x.miss = { kind: 'method_not_allowed', allowed: ['GET'] };

    let refusal: unknown;
    try {
      void unrouted(x, () => undefined);
    } catch (err) {
      refusal = err;
    }

    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ status: 405, code: 'method_not_allowed', extra: { headers: { Allow: 'GET, HEAD, OPTIONS' } } });
  });

  it('answers OPTIONS there with 204 and Allow', () => {
    const x = buildExchange({ method: 'OPTIONS', url: '/v1/pricing' });
    x.miss = { kind: 'method_not_allowed', allowed: ['GET'] };

    void unrouted(x, () => undefined);

    expect(x.answer).toMatchObject({ status: 204, ended: true, headers: { allow: 'GET, HEAD, OPTIONS' } });
  });
});
