// How a live shop request is delivered without an e-mail or a list entry
// twice, written once: the states a request id's step record passes through
// and the writes allowed from each. runIntake takes the steps in this order
// and checks each write against the table before it makes it; the store
// writes them (HSETNX for the begun mark, one script for the list entry and
// its marker), so two attempts racing each other still write once.
// No Redis here: how a record shows its state is read by deliveryStateOf.
//
// An e-mail records that it began (`<step>_pending`) in the write before it,
// and that it finished in the write after it. A retry that finds an e-mail
// begun but not finished may be repeating one that went out: it sends it
// again with the same Message-ID and a warning (the at-least-once window,
// README). The list entry is written together with its marker, which is its
// step's record, so it is never written twice.
import type { StepState } from '../store/intake-store.js';

/** Where a shop request's delivery stands. */
export const Delivery = {
  /** No e-mail begun: nothing recorded yet, or only the logos (and a begun mark taken back). */
  received: 'received',
  /** The operator e-mail may have gone out: marked begun, not recorded sent. */
  operatorBegun: 'operator_begun',
  /** The operator e-mail is recorded sent; the confirmation is not begun (its begun mark was taken back). */
  operatorSent: 'operator_sent',
  /** The operator e-mail is recorded sent, and the confirmation may have gone out (or was held back). */
  confirmationBegun: 'confirmation_begun',
  /** A record of an earlier version: it marked the confirmation sent in the step record. */
  confirmationSent: 'confirmation_sent',
  /** The list entry and its marker are written: delivered. */
  listed: 'listed',
} as const;
export type DeliveryState = (typeof Delivery)[keyof typeof Delivery];

export const DELIVERY_STATES: readonly DeliveryState[] = Object.values(Delivery);

export interface DeliveryStep {
  /** The states the write may start from; from any other, runIntake refuses it. */
  from: readonly DeliveryState[];
  /** The state it leaves the request in. */
  to: DeliveryState;
  /** The store call that writes it. */
  by: string;
}

export const DELIVERY_STEPS = {
  /**
   * The logos are downloaded and stored with their notes; the same write
   * marks the operator e-mail begun. Again from `operator_begun` when the
   * stored logos expired before a retry (a failed job retried days later).
   */
  recordLogos: {
    from: [Delivery.received, Delivery.operatorBegun],
    to: Delivery.operatorBegun,
    by: "store.record('logos', next: operator)",
  },
  /**
   * Before the operator e-mail: a request without logos is marked in the
   * record's first read (HSETNX, so a racing attempt sees the other's mark);
   * one whose mark was taken back is marked again.
   */
  beginOperator: {
    from: [Delivery.received],
    to: Delivery.operatorBegun,
    by: "store.begin(markOperatorBegun), store.markPending('operator')",
  },
  /** The SMTP server refused the operator e-mail before it took any data: it certainly did not go out. */
  takeBackOperator: {
    from: [Delivery.operatorBegun],
    to: Delivery.received,
    by: "store.clearPending('operator')",
  },
  /** After the operator e-mail: recorded sent, the stored logos deleted, the confirmation marked begun in the same write. */
  recordOperator: {
    from: [Delivery.operatorBegun],
    to: Delivery.confirmationBegun,
    by: "store.record('operator', next: contact)",
  },
  /** A confirmation whose begun mark was taken back is marked again before it is sent. */
  beginConfirmation: {
    from: [Delivery.operatorSent],
    to: Delivery.confirmationBegun,
    by: "store.markPending('contact')",
  },
  /** The SMTP server refused the confirmation before it took any data. */
  takeBackConfirmation: {
    from: [Delivery.confirmationBegun],
    to: Delivery.operatorSent,
    by: "store.clearPending('contact')",
  },
  /**
   * The last step records itself: the entry and its marker in one script.
   * From `operator_sent` only when the confirmation is held back (nothing to
   * send); a second run finds the marker and gets the same entry.
   */
  appendListEntry: {
    from: [Delivery.operatorSent, Delivery.confirmationBegun, Delivery.confirmationSent],
    to: Delivery.listed,
    by: 'store.appendListEntry',
  },
} as const satisfies Record<string, DeliveryStep>;
export type DeliveryStepName = keyof typeof DELIVERY_STEPS;

/** Whether `step` may be written from `state`. */
export function mayTake(step: DeliveryStepName, state: DeliveryState): boolean {
  const rule: DeliveryStep = DELIVERY_STEPS[step];
  return rule.from.includes(state);
}

/** The state after `step`, or DeliveryStepRefused when the table does not allow it from `state`. */
export function take(step: DeliveryStepName, state: DeliveryState, id: string): DeliveryState {
  if (!mayTake(step, state)) throw new DeliveryStepRefused(id, step, state);
  return DELIVERY_STEPS[step].to;
}

/**
 * The state a step record shows; `listed` when the list entry's marker was
 * found (the record alone does not show it, except in records of earlier
 * versions, which wrote `list` there).
 */
export function deliveryStateOf(record: StepState, listed = false): DeliveryState {
  if (listed || record.list) return Delivery.listed;
  if (record.contact) return Delivery.confirmationSent;
  if (record.operator) return record.contact_pending ? Delivery.confirmationBegun : Delivery.operatorSent;
  return record.operator_pending ? Delivery.operatorBegun : Delivery.received;
}

/** A write the table does not allow from the state the request was in; nothing was written. */
export class DeliveryStepRefused extends Error {
  constructor(
    readonly id: string,
    readonly step: DeliveryStepName,
    readonly state: DeliveryState,
  ) {
    super(`${id}: ${step} is not allowed once ${state}`);
    this.name = 'DeliveryStepRefused';
  }
}
