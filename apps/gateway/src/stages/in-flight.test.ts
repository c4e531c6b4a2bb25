import { EventEmitter } from 'node:events';
import { createMetrics } from '@msa/service-kit';
import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { buildExchange, buildPrincipal, runStage, type TestExchange } from '../../test/build-exchange.js';
import { createInFlightStage } from './in-flight.js';

const rejections = createMetrics('gateway').counter('test_in_flight_rejections_total', 'rejections', ['policy']);

/** An exchange whose response emits `finish` and `close` like a real one. */
function exchange(overrides: Parameters<typeof buildExchange>[0] = {}): TestExchange & { res: Response & EventEmitter } {
  const x = buildExchange(overrides);
  const res = Object.assign(new EventEmitter(), x.res);
  return Object.assign(x, { res }) as TestExchange & { res: Response & EventEmitter };
}

describe('in-flight stage', () => {
  it('refuses a principal\'s request past the cap with 429 and Retry-After, while another principal is admitted', async () => {
    const stage = createInFlightStage({ perPrincipal: 2, perAddress: 1, rejections });
    const one = buildPrincipal({ id: 'msa_client_one' });
    for (let i = 0; i < 2; i++) await stage(exchange({ principal: one }), () => undefined);

    await expect(runStage(stage, exchange({ principal: one }), () => undefined)).rejects.toMatchObject({
      status: 429,
      code: 'rate_limited',
      extra: { headers: { 'Retry-After': '1' } },
    });
    let admitted = false;
    await stage(exchange({ principal: buildPrincipal({ id: 'msa_client_two' }) }), () => void (admitted = true));
    expect(admitted).toBe(true);
  });

  it('counts callers without credentials by address, with the smaller cap', async () => {
    const stage = createInFlightStage({ perPrincipal: 8, perAddress: 1, rejections });
    await stage(exchange({ ip: '198.51.100.1' }), () => undefined);

    await expect(runStage(stage, exchange({ ip: '198.51.100.1' }), () => undefined)).rejects.toMatchObject({ status: 429 });
    await expect(runStage(stage, exchange({ ip: '198.51.100.2' }), () => undefined)).resolves.toBeUndefined();
  });

  it('gives a slot back once when the answer finishes and the connection then closes', async () => {
    const stage = createInFlightStage({ perPrincipal: 2, perAddress: 1, rejections });
    const principal = buildPrincipal();
    const first = exchange({ principal });
    const second = exchange({ principal });
    await stage(first, () => undefined);
    await stage(second, () => undefined);

    first.res.emit('finish');
    first.res.emit('close');

    expect(stage.openFor(`p:${principal.id}`)).toBe(1);
    second.res.emit('close');
    expect(stage.openFor(`p:${principal.id}`)).toBe(0);
  });
});
