import { createMetrics } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import { buildExchange, memoryFailureLimiter } from '../../test/build-exchange.js';
import { CredentialRefused } from '../auth/challenges.js';
import { createFailOpen } from './fail-open.js';
import { createFailedAuthBudgetStage } from './failed-auth-budget.js';
import type { Exchange } from './exchange.js';

const metrics = createMetrics('gateway');
const rejections = metrics.counter('test_rejections_total', 'rejections', ['policy']);
const failOpen = createFailOpen(metrics.counter('test_limiter_errors_total', 'limiter errors'));

function budget(points: number, failedBefore = 0) {
  const limiter = memoryFailureLimiter(points, failedBefore);
  return { limiter, stage: createFailedAuthBudgetStage({ limiter, failOpen, rejections }) };
}

const withKey = () => buildExchange({ headers: { authorization: `Bearer msa_test_${'k'.repeat(32)}` } });
const refuse = (x: Exchange) => {
  throw new CredentialRefused(x.resource, 'The API key is unknown.');
};

describe('failed-auth budget stage', () => {
  it('reads nothing for a request without credentials', async () => {
    const { limiter, stage } = budget(30);

    await stage(buildExchange(), async (x) => {
      expect(await x.mayAskIdentity()).toBe(true);
    });

    expect(limiter.calls).toEqual({ check: 0, fail: 0 });
  });

  it('reads the budget only when identity is to be asked, and once', async () => {
    const { limiter, stage } = budget(30);

    await stage(withKey(), async () => undefined);
    expect(limiter.calls.check).toBe(0);

    await stage(withKey(), async (y) => {
      await y.mayAskIdentity();
      await y.mayAskIdentity();
    });
    expect(limiter.calls.check).toBe(1);
  });

  it('counts a refused credential and lets the 401 show the budget counting down', async () => {
    const { limiter, stage } = budget(30);
    const x = withKey();

    await expect(stage(x, refuse)).rejects.toBeInstanceOf(CredentialRefused);

    expect(limiter.calls.fail).toBe(1);
    expect(x.answer.headers).toMatchObject({ 'ratelimit-policy': '"failed-auth";q=30;w=60', ratelimit: '"failed-auth";r=29;t=42' });
  });

  it('answers 429 past the budget, without asking identity', async () => {
    const { limiter, stage } = budget(30, 30);
    const x = withKey();
    let asked: boolean | undefined;

    const refusal = stage(x, async (y: Exchange) => {
      asked = await y.mayAskIdentity();
      refuse(y);
    });

    await expect(refusal).rejects.toMatchObject({ status: 429, code: 'rate_limited', extra: { headers: { 'Retry-After': '42' } } });
    expect(asked).toBe(false);
    expect(limiter.calls.fail).toBe(0);
  });

  it('lets credentials settled without identity through past the budget', async () => {
    const { stage } = budget(30, 30);

    await expect(stage(withKey(), async () => undefined)).resolves.toBeUndefined();
  });

  it('passes other refusals on untouched', async () => {
    const { limiter, stage } = budget(30);

    await expect(stage(withKey(), () => {
      throw new Error('identity away');
    })).rejects.toThrow('identity away');
    expect(limiter.calls.fail).toBe(0);
  });
});
