import { describe, expect, it } from 'vitest';
import {
  DELIVERY_STATES,
  DELIVERY_STEPS,
  Delivery,
  DeliveryStepRefused,
  deliveryStateOf,
  mayTake,
  take,
  type DeliveryState,
  type DeliveryStepName,
} from './delivery-steps.js';

const { received, operatorBegun, operatorSent, confirmationBegun, confirmationSent, listed } = Delivery;

/** Every transition the delivery allows, written out here so that a change to the table shows in this list. */
const ALLOWED: [DeliveryStepName, DeliveryState, DeliveryState][] = [
  ['recordLogos', received, operatorBegun],
  ['recordLogos', operatorBegun, operatorBegun],
  ['beginOperator', received, operatorBegun],
  ['takeBackOperator', operatorBegun, received],
  ['recordOperator', operatorBegun, confirmationBegun],
  ['beginConfirmation', operatorSent, confirmationBegun],
  ['takeBackConfirmation', confirmationBegun, operatorSent],
  ['appendListEntry', operatorSent, listed],
  ['appendListEntry', confirmationBegun, listed],
  ['appendListEntry', confirmationSent, listed],
];

describe('the delivery steps', () => {
  it.each(ALLOWED)('%s takes a request from %s to %s', (step, from, to) => {
    expect(mayTake(step, from)).toBe(true);
    expect(take(step, from, 'req_1')).toBe(to);
  });

  it('records the operator e-mail sent only after it was marked begun, so a crash in between is seen by the retry', () => {
    for (const state of [received, operatorSent, confirmationBegun, confirmationSent, listed]) expect(mayTake('recordOperator', state), state).toBe(false);
  });

  it('never marks the operator e-mail begun again once it is recorded sent: a retry does not send it twice', () => {
    for (const state of [operatorSent, confirmationBegun, confirmationSent, listed]) {
      expect(mayTake('beginOperator', state), state).toBe(false);
      expect(mayTake('recordLogos', state), state).toBe(false);
    }
  });

  it('appends no list entry before the operator e-mail is recorded sent, nor a second one once listed', () => {
    for (const state of [received, operatorBegun, listed]) expect(mayTake('appendListEntry', state), state).toBe(false);
  });

  it('takes back only a mark of an e-mail that is begun and not recorded sent', () => {
    for (const state of [received, operatorSent, confirmationBegun, confirmationSent, listed]) expect(mayTake('takeBackOperator', state), state).toBe(false);
    for (const state of [received, operatorBegun, operatorSent, confirmationSent, listed]) expect(mayTake('takeBackConfirmation', state), state).toBe(false);
  });

  it('allows nothing beyond the transitions listed above', () => {
    const allowed = new Set(ALLOWED.map(([step, from]) => `${step} ${from}`));
    const steps = Object.keys(DELIVERY_STEPS) as DeliveryStepName[];

    const taken = steps.flatMap((step) => DELIVERY_STATES.filter((from) => mayTake(step, from)).map((from) => `${step} ${from}`));

    expect(new Set(taken)).toEqual(allowed);
  });

  it('refuses a step the table does not allow, naming the request, the step and the state', () => {
    const refuse = () => take('recordOperator', listed, 'req_2');

    expect(refuse).toThrow(DeliveryStepRefused);
    expect(refuse).toThrow('req_2: recordOperator is not allowed once listed');
  });
});

describe('deliveryStateOf', () => {
  it.each([
    [{}, false, received],
    [{ logos: '[]' }, false, received],
    [{ operator_pending: '1' }, false, operatorBegun],
    [{ logos: '[]', operator_pending: '1' }, false, operatorBegun],
    [{ operator_pending: '1', operator: '2' }, false, operatorSent],
    [{ operator_pending: '1', operator: '2', contact_pending: '2' }, false, confirmationBegun],
    [{ operator: '2', contact_pending: '2', contact: '3' }, false, confirmationSent],
    [{ operator: '2', contact: '3', list: '1-0' }, false, listed],
    [{ operator: '2', contact_pending: '2' }, true, listed],
  ] as const)('reads %j (list entry found: %s) as %s', (record, found, state) => {
    expect(deliveryStateOf(record, found)).toBe(state);
  });
});
