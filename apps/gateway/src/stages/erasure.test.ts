import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { buildPrincipal, buildRoute } from '../../test/build-exchange.js';
import { createErasureStage, grantOfBearer } from './erasure.js';
import type { Exchange } from './exchange.js';

const tokenWith = (claims: Record<string, unknown>) =>
  ['{"alg":"ES256"}', JSON.stringify(claims)].map((part) => Buffer.from(part).toString('base64url')).join('.') + '.signature';

function erasureExchange(opts: { operation?: 'erasePersonalData' | 'exportPersonalData'; via?: 'oauth' | 'api_key'; grant?: string }) {
  const res = Object.assign(new EventEmitter(), { statusCode: 204 });
  const x = {
    route: buildRoute({ operation: opts.operation ?? 'erasePersonalData', method: 'DELETE', path: '/v1/me/data', target: 'identity', auth: 'required' }),
    principal: buildPrincipal({ via: opts.via ?? 'oauth' }),
    req: { headers: { authorization: `Bearer ${tokenWith(opts.grant ? { grant: opts.grant } : {})}` } },
    res,
  } as unknown as Exchange;
  return { x, res };
}

describe('erasure stage', () => {
  it("tells the grant status the asking token's grant is revoked once the erasure succeeded", async () => {
    const revoked: string[] = [];
    const { x, res } = erasureExchange({ grant: 'gErased' });

    await createErasureStage({ revokedGrant: (g) => revoked.push(g) })(x, () => undefined);
    expect(revoked).toEqual([]);
    res.emit('finish');

    expect(revoked).toEqual(['gErased']);
  });

  it('leaves the grant alone when the erasure failed, and for other operations', async () => {
    const revoked: string[] = [];
    const stage = createErasureStage({ revokedGrant: (g) => revoked.push(g) });
    const failed = erasureExchange({ grant: 'g1' });
    failed.res.statusCode = 503;
    const other = erasureExchange({ grant: 'g2', operation: 'exportPersonalData' });

    for (const { x, res } of [failed, other]) {
      await stage(x, () => undefined);
      res.emit('finish');
    }

    expect(revoked).toEqual([]);
  });

  it('forgets the API key that asked once its erasure succeeded', async () => {
    const forgotten: string[] = [];
    const { x, res } = erasureExchange({ via: 'api_key' });
    (x.req.headers as Record<string, string>).authorization = `Bearer msa_test_${'k'.repeat(40)}`;

    await createErasureStage({ forgetKey: (k) => forgotten.push(k) })(x, () => undefined);
    res.emit('finish');

    expect(forgotten).toEqual([`msa_test_${'k'.repeat(40)}`]);
  });

  it('reads the grant claim of a bearer token, and nothing from anything else', () => {
    expect(grantOfBearer(`Bearer ${tokenWith({ grant: 'gX', sub: 'p' })}`)).toBe('gX');
    expect(grantOfBearer(`Bearer ${tokenWith({ sub: 'p' })}`)).toBeUndefined();
    expect(grantOfBearer('Bearer not-a-jwt')).toBeUndefined();
    expect(grantOfBearer('Bearer a.%%%.c')).toBeUndefined();
    expect(grantOfBearer(undefined)).toBeUndefined();
  });
});
