// How a shop request is accepted without ever being lost or counted twice
// (docs/decisions/crash-consistent-intake.md), written once: the states a
// request id passes through and the steps allowed between them. The use
// case and the reconciler take the steps; the store writes them, and each
// of its steps checks this table in the same Redis call that writes it.
// No Redis here: how a record shows its state is the store's business.

/** Where a shop request id stands. */
export const Acceptance = {
  /** In the pending set, nothing written beside it yet (an id without a record looks like this). */
  begun: 'begun',
  /** Its claim is written: the owner, UTC day and mode of the quota unit the id names. */
  claimed: 'claimed',
  /** The record is stored: the request is accepted. A sandbox request ends here; a live one waits for the queue. */
  stored: 'stored',
  /** On the intake queue and marked so: finished. */
  queued: 'queued',
  /** Never stored, and given up by the reconciler, which refunded its unit; a retry with the same key claims it again. */
  abandoned: 'abandoned',
} as const;
export type AcceptanceState = (typeof Acceptance)[keyof typeof Acceptance];

export const ACCEPTANCE_STATES: readonly AcceptanceState[] = Object.values(Acceptance);

export type Mode = 'live' | 'sandbox';

export interface AcceptanceStep {
  /** The states the step may start from; from any other it is refused and writes nothing. */
  from: readonly AcceptanceState[];
  /** The state it leaves the id in; null when nothing of the id is left. */
  to: AcceptanceState | null;
  /** Only requests of this mode take the step. */
  only?: Mode;
  /** Who takes it, and through which store call. */
  by: string;
}

/**
 * The steps. Pending-set membership is bookkeeping beside them: an id is in
 * the set from `claim` until its live request is queued (a sandbox one until
 * stored), so the reconciler finds every id that has not finished.
 */
export const ACCEPTANCE_STEPS = {
  /**
   * The id enters the pending set (begun), then its claim is written. A
   * retry with the same key claims its id again, also after the reconciler
   * gave it up; an id its first attempt already stored keeps its record.
   */
  claim: {
    from: [Acceptance.begun, Acceptance.claimed, Acceptance.abandoned],
    to: Acceptance.claimed,
    by: 'createShopRequest, store.begin',
  },
  /**
   * Refused once the claim was given up: its unit was refunded, so the
   * request must not count as accepted. An id without a claim (it expired,
   * or an earlier release stored without one) is stored too, and a retry
   * that outran its first attempt's lock stores the same request again,
   * whose second hand-over the job id makes a no-op.
   */
  store: {
    from: [Acceptance.begun, Acceptance.claimed, Acceptance.stored, Acceptance.queued],
    to: Acceptance.stored,
    by: 'createShopRequest, store.create',
  },
  /** Enqueued (job id = request id), then marked queued: `handOver`, for the POST and the reconciler. */
  queue: {
    from: [Acceptance.stored],
    to: Acceptance.queued,
    only: 'live',
    by: 'handOver, store.markQueued',
  },
  /** A claim older than the reconciler's minimum age whose record was never stored: given up, its unit refunded. */
  abandon: {
    from: [Acceptance.claimed],
    to: Acceptance.abandoned,
    by: 'the reconciler, store.abandon',
  },
  /** The POST gives up before storing (quota refused, a product problem, a failed store): the claim goes. */
  forget: {
    from: [Acceptance.begun, Acceptance.claimed, Acceptance.abandoned],
    to: null,
    by: 'createShopRequest, store.forget',
  },
} as const satisfies Record<string, AcceptanceStep>;
export type AcceptanceStepName = keyof typeof ACCEPTANCE_STEPS;

/** Whether `step` may start from `state` for a request of `mode`. */
export function mayTake(step: AcceptanceStepName, state: AcceptanceState, mode: Mode): boolean {
  const rule: AcceptanceStep = ACCEPTANCE_STEPS[step];
  return rule.from.includes(state) && (rule.only === undefined || rule.only === mode);
}

/**
 * How a stored record writes its state in its `intake` field: a live one is
 * `pending` until queued, a sandbox one says `none` (it is never queued).
 */
export const Intake = { pending: 'pending', queued: 'queued', none: 'none' } as const;
export type IntakeState = (typeof Intake)[keyof typeof Intake];

/** The `intake` field of a request of `mode` when it is stored. */
export function intakeWhenStored(mode: Mode): IntakeState {
  return mode === 'live' ? Intake.pending : Intake.none;
}

/** The state and mode a stored record's `intake` field records. */
export function acceptanceOfStored(intake: IntakeState): { state: AcceptanceState; mode: Mode } {
  if (intake === Intake.queued) return { state: Acceptance.queued, mode: 'live' };
  return { state: Acceptance.stored, mode: intake === Intake.none ? 'sandbox' : 'live' };
}

/** A step the table does not allow from the state the id was in; nothing was written. */
export class AcceptanceStepRefused extends Error {
  constructor(
    readonly id: string,
    readonly step: AcceptanceStepName,
    readonly state: AcceptanceState,
  ) {
    super(`${id}: ${step} is not allowed once ${state}`);
    this.name = 'AcceptanceStepRefused';
  }
}

/** The one refusal a POST meets: its `store` step after the reconciler gave its claim up and refunded its unit. */
export class ClaimAbandonedError extends AcceptanceStepRefused {
  constructor(id: string) {
    super(id, 'store', Acceptance.abandoned);
    this.message = `the claim of ${id} was given up before it was stored`;
    this.name = 'ClaimAbandonedError';
  }
}
