import { describe, expect, it } from 'vitest';
import { BASE, buildExchange } from '../../test/build-exchange.js';
import { createDeprecationStage } from './deprecation.js';

const deprecation = createDeprecationStage({
  deprecations: [{ method: 'GET', path: '/v1/pricing', deprecatedAt: '2026-01-01', sunset: '2027-01-01', notice: '/developers#deprecations' }],
  publicBaseUrl: BASE,
});

describe('deprecation stage', () => {
  it('adds Deprecation, Sunset and Link to a listed operation, HEAD as GET', async () => {
    const x = buildExchange({ method: 'HEAD', url: '/v1/pricing' });
    x.path = '/v1/pricing';

    await deprecation(x, () => undefined);

    expect(x.answer.headers).toMatchObject({ deprecation: 'true', sunset: 'Fri, 01 Jan 2027 00:00:00 GMT', link: `<${BASE}/developers#deprecations>; rel="deprecation"; type="text/html"` });
  });

  it('leaves other operations alone', async () => {
    const x = buildExchange({ url: '/v1/products' });
    x.path = '/v1/products';

    await deprecation(x, () => undefined);

    expect(x.answer.headers).toEqual({});
  });
});
