import { EventEmitter } from 'node:events';
import { createMetrics } from '@msa/service-kit';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { buildExchange, buildRoute, runStage, type TestExchange } from '../../test/build-exchange.js';
import { createAuthorizeBudgetStage } from './authorize-budget.js';

const rejections = createMetrics('gateway').counter('test_authorize_rejections_total', 'rejections', ['policy']);

const authorizePage = () => buildRoute({ operation: 'authorize', path: '/oauth/authorize', target: 'identity', auth: 'none', pool: 'authorize' });

/** An exchange whose response emits `finish` and `close` like a real one. */
function exchange(overrides: Parameters<typeof buildExchange>[0] = {}): TestExchange & { res: Response & EventEmitter } {
  const x = buildExchange(overrides);
  const res = Object.assign(new EventEmitter(), x.res);
  return Object.assign(x, { res }) as TestExchange & { res: Response & EventEmitter };
}

describe('authorize budget stage', () => {
  it('refuses an authorization page past the budget with 429 and Retry-After, whatever address sends it', async () => {
    const stage = createAuthorizeBudgetStage({ limit: 2, rejections });
    await stage(exchange({ route: authorizePage(), ip: '198.51.100.1' }), () => undefined);
    await stage(exchange({ route: authorizePage(), ip: '198.51.100.2' }), () => undefined);

    await expect(runStage(stage, exchange({ route: authorizePage(), ip: '198.51.100.3' }))).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      extra: { headers: { 'Retry-After': '1' } },
    });
  });

  it('passes every other route while the budget is spent, without counting it', async () => {
    const stage = createAuthorizeBudgetStage({ limit: 1, rejections });
    await stage(exchange({ route: authorizePage() }), () => undefined);

    let passed = 0;
    for (const route of [buildRoute({ operation: 'issueAccessToken', method: 'POST', path: '/oauth/token', target: 'identity', auth: 'none' }), buildRoute()]) {
      await stage(exchange({ route }), () => void (passed += 1));
    }

    expect(passed).toBe(2);
    expect(stage.inFlight()).toBe(1);
  });

  it('gives a slot back once when the answer finishes and the connection then closes', async () => {
    const stage = createAuthorizeBudgetStage({ limit: 2, rejections });
    const first = exchange({ route: authorizePage() });
    const second = exchange({ route: authorizePage() });
    await stage(first, () => undefined);
    await stage(second, () => undefined);

    first.res.emit('finish');
    first.res.emit('close');

    expect(stage.inFlight()).toBe(1);
    second.res.emit('close');
    expect(stage.inFlight()).toBe(0);
  });
});
